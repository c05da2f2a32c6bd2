// Builds the <attn-scope> element (web/element/) twice from the same source:
//   dist/attnscope-element.js   a classic script (IIFE) with the SIMD wasm and the 10,000-word vocabulary
//                               inlined (the single-file flavour staged by build-dist.mjs):
//                               <script src="attnscope-element.js"></script> works from file://, where
//                               Chromium refuses module scripts, and needs no other file;
//   dist/attnscope-element.mjs  the package export 'attnscope/element' (ES module), for sites with a
//                               bundler: it imports the split build (./attnscope.mjs, not bundled in), whose
//                               wasm and vocabulary files are named in literal new URL('./file',
//                               import.meta.url), so the app's bundler emits them as assets, fetched on
//                               use, instead of 1.5 MB of base64 in the app's JavaScript;
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
  loader: { '.css': 'text' },
  plugins: [formulasPlugin],
};
// The classic script uses the single-file module: nothing to fetch next to the script.
const single = {
  alias: { attnscope: join(stage, 'single.mjs'), 'attnscope/files': join(stage, 'scope-files.mjs') },
  plugins: [...common.plugins, {
    name: 'inlined-vocabulary',
    setup(b) { b.onResolve({ filter: /^attnscope\/vocab-10k$/ }, () => ({ path: 'vocab-10k', namespace: 'inlined' }));
      b.onLoad({ filter: /.*/, namespace: 'inlined' }, () => ({ contents: '// the 10,000 words are inlined in the single-file build', loader: 'js' })); },
  }],
};
// The module imports the package's own split build, next to it in dist/ (and shared with an app's
// own import of 'attnscope': one copy of the core and one wasm instance per page).
const splitBuild = {
  name: 'attnscope-split-build',
  setup(b) {
    b.onResolve({ filter: /^attnscope$/ }, () => ({ path: './attnscope.mjs', external: true }));
    b.onResolve({ filter: /^attnscope\/vocab-10k$/ }, () => ({ path: './vocab-10k.mjs', external: true }));
    b.onResolve({ filter: /^attnscope\/files$/ }, () => ({ path: './scope-files.mjs', external: true }));
  },
};

// Classic script: there is no import.meta in a script; the module's base URL is the script's own
// address (only used to resolve relative vocabulary URLs, which the element resolves itself).
await build({
  ...common,
  ...single,
  outfile: join(dist, 'attnscope-element.js'),
  format: 'iife',
  globalName: 'AttnScope',
  define: { 'import.meta.url': '__attnscopeBase' },
  banner: {
    js: '/* attnscope <attn-scope> element: classic script with the wasm (SIMD) and a 10,000-word GloVe vocabulary (PDDL) inlined. */\n'
      + 'var __attnscopeBase = (typeof document !== "undefined" && document.currentScript && document.currentScript.src) || (typeof location !== "undefined" ? location.href : "file:///");',
  },
});
// The module is bundled again by the site's bundler: minified whitespace and names only.
await build({
  ...common,
  plugins: [...common.plugins, splitBuild],
  minify: false,
  minifyWhitespace: !dev,
  minifyIdentifiers: !dev,
  outfile: join(dist, 'attnscope-element.mjs'),
  format: 'esm',
  banner: { js: '/* attnscope <attn-scope> element (ES module): the wasm and the 10,000-word GloVe vocabulary (PDDL) are files of the package (./attnscope.mjs finds them). */' },
});
const esm = readFileSync(join(dist, 'attnscope-element.mjs'), 'utf8');
if (/import\.meta\b/.test(esm)) throw new Error('build-element: attnscope-element.mjs uses import.meta (webpack would turn it into a path of the build machine)');
if (!/from\s*["']\.\/attnscope\.mjs["']/.test(esm)) throw new Error('build-element: attnscope-element.mjs does not import ./attnscope.mjs');
if (!/import\s*["']\.\/vocab-10k\.mjs["']/.test(esm)) throw new Error('build-element: attnscope-element.mjs does not import ./vocab-10k.mjs (its built-in vocabulary)');
if (esm.length > 1e6) throw new Error(`build-element: attnscope-element.mjs is ${esm.length} bytes: has the wasm or a vocabulary been inlined again?`);
copyFileSync(join(root, 'bindings/element.d.ts'), join(dist, 'attnscope-element.d.ts'));

for (const f of ['attnscope-element.js', 'attnscope-element.mjs']) {
  const bytes = readFileSync(join(dist, f));
  console.log(`dist/${f}: ${statSync(join(dist, f)).size.toLocaleString('en')} bytes, gzip ${gzipSync(bytes).length.toLocaleString('en')}`);
}
