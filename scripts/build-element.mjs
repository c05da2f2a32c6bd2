// Builds the <attn-scope> element (web/element/) twice from the same source, both with the SIMD wasm
// and the 10,000-word vocabulary inlined (the single-file flavour staged by build-dist.mjs):
//   dist/attnscope-element.js   a classic script (IIFE): <script src="attnscope-element.js"></script>
//                               works from file://, where Chromium refuses module scripts;
//   dist/attnscope-element.mjs  the package export 'attnscope/element' (ES module), for bundled sites;
// plus dist/attnscope-element.d.ts (types). Run after build-dist.mjs.
//   node scripts/build-element.mjs [--dev]     (--dev: no minification)
import { build } from 'esbuild';
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { formulas } from './formulas.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const stage = join(root, 'build/single');
const dev = process.argv.includes('--dev');
for (const f of ['single.mjs', 'scope.mjs', 'attnscope-single-wasm.mjs', 'glove-10k.base64.mjs']) {
  if (!existsSync(join(stage, f))) {
    console.error(`build-element: build/single/${f} is missing; run node scripts/build-dist.mjs first`);
    process.exit(1);
  }
}
const { plugin: formulasPlugin } = await formulas();

const common = {
  entryPoints: [join(root, 'web/element/index.js')],
  bundle: true,
  platform: 'browser',
  target: ['es2020', 'chrome100', 'firefox100', 'safari16.4'],
  minify: !dev,
  legalComments: 'none',
  logLevel: 'warning',
  // The element always uses the single-file module: nothing to fetch next to the script.
  alias: { attnscope: join(stage, 'single.mjs') },
  loader: { '.css': 'text' },
  plugins: [formulasPlugin],
};

// Classic script: there is no import.meta in a script; the module's base URL is the script's own
// address (only used to resolve relative vocabulary URLs, which the element resolves itself).
await build({
  ...common,
  outfile: join(dist, 'attnscope-element.js'),
  format: 'iife',
  globalName: 'AttnScope',
  define: { 'import.meta.url': '__attnscopeBase' },
  banner: {
    js: '/* attnscope <attn-scope> element: classic script with the wasm (SIMD) and a 10,000-word GloVe vocabulary (PDDL) inlined. */\n'
      + 'var __attnscopeBase = (typeof document !== "undefined" && document.currentScript && document.currentScript.src) || (typeof location !== "undefined" ? location.href : "file:///");',
  },
});
// The module is bundled again by the site's bundler: no syntax minification, which would fold the node-only
// import in scope.mjs (kept out of bundlers' sight behind a variable) into a literal they try to resolve.
await build({
  ...common,
  minify: false,
  minifyWhitespace: !dev,
  minifyIdentifiers: !dev,
  outfile: join(dist, 'attnscope-element.mjs'),
  format: 'esm',
  banner: { js: '/* attnscope <attn-scope> element (ES module): wasm (SIMD) and a 10,000-word GloVe vocabulary (PDDL) inlined. */' },
});
copyFileSync(join(root, 'bindings/element.d.ts'), join(dist, 'attnscope-element.d.ts'));

for (const f of ['attnscope-element.js', 'attnscope-element.mjs']) {
  const bytes = readFileSync(join(dist, f));
  console.log(`dist/${f}: ${statSync(join(dist, f)).size.toLocaleString('en')} bytes, gzip ${gzipSync(bytes).length.toLocaleString('en')}`);
}
