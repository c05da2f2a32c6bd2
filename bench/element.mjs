// Benchmark (not a test): how long a note with <attn-scope> takes from navigation to its first drawn
// figure, opened from file:// in headless Chromium (no server, no cache between runs: a fresh browser
// context each time), and the size of dist/attnscope-element.js, raw and gzip.
//   node bench/element.mjs [--runs N]      writes bench/results/element.json
// "first figure" = the attn-ready event's time (performance.now(), from navigation start): the wasm
// compiled, the inlined vocabulary decoded and loaded, the attention computed and the heatmap drawn.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { header, launch, median } from './browser.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 15;
const file = join(root, 'dist/attnscope-element.js');
const bytes = readFileSync(file);

const dir = mkdtempSync(join(tmpdir(), 'attnscope-bench-element-'));
copyFileSync(file, join(dir, 'attnscope-element.js'));
const pages = {
  one: '<attn-scope query="The cat sat on the mat." keys="A kitten rested on the rug." score="cosine" temperature="0.1"></attn-scope>',
  fifty: Array.from({ length: 50 }, (_, i) => `<attn-scope query="The animal number ${i} did not cross the street." controls="none"></attn-scope>`).join('\n'),
};
for (const [name, body] of Object.entries(pages)) {
  writeFileSync(join(dir, `${name}.html`), `<!doctype html><meta charset="utf-8"><title>${name}</title>\n<script src="attnscope-element.js"></script>\n${body}\n`);
}

const browser = await launch();

/** One cold load: navigation start → first attn-ready (and → every element ready, for "fifty"). */
async function load(name) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__first = 0;
    window.__ready = 0;
    document.addEventListener('attn-ready', () => {
      window.__ready++;
      if (!window.__first) window.__first = performance.now();
    });
  });
  await page.goto(pathToFileURL(join(dir, `${name}.html`)).href);
  const n = await page.evaluate(() => document.querySelectorAll('attn-scope').length);
  await page.waitForFunction((want) => {
    for (const el of document.querySelectorAll('attn-scope')) el.flush();
    return window.__ready >= want;
  }, n, { timeout: 60000, polling: 50 });
  const t = await page.evaluate(() => ({ first: window.__first, all: performance.now() }));
  await context.close();
  return t;
}

const results = {};
for (const name of Object.keys(pages)) {
  // Warm-up, at least 1 s: the browser's own caches (not the page's: each context is new).
  const w0 = Date.now();
  while (Date.now() - w0 < 1000) await load(name);
  const first = [];
  for (let i = 0; i < RUNS; i++) first.push((await load(name)).first);
  results[name] = { runs: RUNS, firstFigureMedianMs: Math.round(median(first)), firstFigureMinMs: Math.round(Math.min(...first)),
    firstFigureMaxMs: Math.round(Math.max(...first)) };
  console.log(`${name}: load to first figure, median ${results[name].firstFigureMedianMs} ms (min ${results[name].firstFigureMinMs}, max ${results[name].firstFigureMaxMs}) over ${RUNS} cold loads from file://`);
}
await browser.close();
rmSync(dir, { recursive: true, force: true });

const out = {
  ...header(),
  machine: 'headless, software rendering, 1366×768; 2 shared cores (noisy)',
  file: 'dist/attnscope-element.js',
  bytes: bytes.length,
  gzipBytes: gzipSync(bytes, { level: 9 }).length,
  loadFromFile: results,
  command: `node bench/element.mjs --runs ${RUNS}`,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/element.json'), JSON.stringify(out, null, 2) + '\n');
console.log(`dist/attnscope-element.js: ${out.bytes.toLocaleString('en')} bytes, gzip ${out.gzipBytes.toLocaleString('en')}`);
