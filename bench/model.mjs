// Model page benchmark: a 12 layers × 12 heads × 512 tokens .npy (+ tokens) dropped on
// dist/web/model.html → the layers × heads grid drawn, in headless Chromium.
//
// The page measures it itself (web/model.js): "attnscope:model-file-to-grid" runs from the drop event
// to the first animation frame after the grid's image is set, and "attnscope:model-file-to-all" until
// the heatmap, line view, summaries and rollout are drawn too. The page's worker (web/model-worker.js)
// does the work and answers once: reading the file, loadAttentions' copy into wasm, parsing and
// validation, the copy out, the grid's thumbnails (one pass over the 37.7 M numbers), the head
// summaries and the rollout all come before the grid is drawn (ImageData and PNG on the page). The file (151 MB) is built inside the page once, with rows of random weights that sum to
// 1, and dropped again and again: at least WARMUP_MS of drops first, then RUNS measured ones; medians.
//
// Also the page's own thread meanwhile: the longest main-thread task (the browser's long tasks, over
// 50 ms) and the animation frames drawn between the drop and the last view drawn.
//   node bench/model.mjs [--quick] [--web DIR]   (JSON on stdout; scripts/bench.sh stores bench/results/model.json, whose table
//                                                 node bench/tables.mjs writes into docs/benchmarks.md;
//                                                 DIR: another build's dist/web, to compare under the same load)
// A duration is never asserted anywhere: tests/e2e/model.test.mjs checks what is drawn, not how fast.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { root, startServer } from '../scripts/browser-harness.mjs';
import { header, launch, openPage, option } from './browser.mjs';

const quick = process.argv.includes('--quick');
const folder = option('web');
const WARMUP_MS = 1500;
const RUNS = quick ? 5 : 9;
const SHAPE = [12, 12, 512, 512];

if (!existsSync(join(folder || join(root, 'dist/web'), 'model.html'))) throw new Error('dist/web/model.html is missing: run `npm run build` first');

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.floor(s.length / 2)] : null; };
const round = (x) => (x === null ? null : Math.round(x * 10) / 10);

const server = await startServer(folder);
const browser = await launch();
const runs = [];
let drawn;
try {
  const page = await openPage(browser, server.url + 'model.html', 'body.model-ready', { pageErrors: true });
  // The file: an .npy v1 header and the float32 rows, plus one token per line.
  await page.evaluate((shape) => {
    const [L, H, n] = shape;
    const values = new Float32Array(L * H * n * n);
    let s = 12345;
    const rand = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 4294967296; };
    for (let r = 0; r < L * H * n; r++) {
      let z = 0;
      const o = r * n;
      for (let j = 0; j < n; j++) { const v = rand() ** 6; values[o + j] = v; z += v; }
      for (let j = 0; j < n; j++) values[o + j] /= z;
    }
    let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}), }`;
    while ((10 + header.length + 1) % 64) header += ' ';
    header += '\n';
    const head = new Uint8Array(10 + header.length);
    head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 255, header.length >> 8]);
    for (let i = 0; i < header.length; i++) head[10 + i] = header.charCodeAt(i);
    const tokens = Array.from({ length: n }, (_, i) => `t${i}`).join('\n');
    window.__benchFiles = [new File([head, values.buffer], 'big.npy'), new File([tokens], 'tokens.txt')];
  }, SHAPE);
  const dropOnce = () => page.evaluate(() => new Promise((resolve, reject) => {
    const dt = new DataTransfer();
    for (const f of window.__benchFiles) dt.items.add(f);
    const notice = document.getElementById('notice');
    notice.hidden = true;
    const mark = performance.getEntriesByName('attnscope:model-file-to-grid').length;
    const long = [];
    const observer = new PerformanceObserver((l) => { for (const e of l.getEntries()) long.push(e.duration); });
    observer.observe({ type: 'longtask' });
    let frames = 0, counting = true;
    const tick = () => { if (counting) { frames++; requestAnimationFrame(tick); } };
    requestAnimationFrame(tick);
    document.addEventListener('model-loaded', () => {
      counting = false;
      if (performance.getEntriesByName('attnscope:model-file-to-grid').length === mark) reject(new Error('no measure'));
      const last = (name) => { const e = performance.getEntriesByName(name); return e.length ? e[e.length - 1].duration : null; };
      const got = {
        grid: last('attnscope:model-file-to-grid'), all: last('attnscope:model-file-to-all'),
        read: last('attnscope:model-read'), parse: last('attnscope:model-parse'), thumbnails: last('attnscope:model-thumbnails'),
        gridDraw: last('attnscope:model-grid'), summaries: last('attnscope:model-summaries'), rollout: last('attnscope:model-rollout'),
        frames,
      };
      performance.clearMeasures();
      // The task that sent 'model-loaded' is a long task too when it is one: its entry exists once it ends.
      setTimeout(() => {
        for (const e of observer.takeRecords()) long.push(e.duration);
        observer.disconnect();
        resolve({ ...got, longest: Math.max(0, ...long) });
      }, 100);
    }, { once: true });
    setTimeout(() => { if (!notice.hidden) reject(new Error(document.getElementById('notice-text').textContent)); }, 60000);
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }));
  const t0 = Date.now();
  let warm = 0;
  while (Date.now() - t0 < WARMUP_MS || warm < 2) { await dropOnce(); warm++; }
  for (let i = 0; i < RUNS; i++) runs.push(await dropOnce());
  drawn = await page.evaluate(() => ({
    info: document.getElementById('file-info').textContent,
    labels: document.querySelectorAll('#figure-grid .grid-labels text').length,
  }));
  await page.context().close();
} finally {
  await browser.close();
  await server.stop();
}

const col = (k) => runs.map((r) => r[k]).filter((x) => x !== null);
console.log(JSON.stringify({
  ...header(), build: folder || 'dist/web', viewport: '1440×900', warmup_ms: WARMUP_MS, runs: RUNS, shape: SHAPE, file_bytes: 128 + 4 * SHAPE.reduce((a, b) => a * b, 1),
  drawn, note: 'headless, software rendering; file → grid = drop event to the first frame after the grid image is set',
  results: [
    { name: 'file dropped → grid drawn', median_ms: round(median(col('grid'))), min_ms: round(Math.min(...col('grid'))), max_ms: round(Math.max(...col('grid'))) },
    { name: 'of which, on the page: sorting the files (the tokens file read)', median_ms: round(median(col('read'))) },
    { name: 'of which, in the worker: reading the file and loadAttentions (copy into wasm, parse, validate, copy out)', median_ms: round(median(col('parse'))) },
    { name: 'of which, in the worker: the grid\'s thumbnails (one pass)', median_ms: round(median(col('thumbnails'))) },
    { name: 'of which, in the worker: headSummaries (C++ kernel, one call per layer)', median_ms: round(median(col('summaries'))) },
    { name: 'of which, in the worker: rollout, heads averaged (C++ kernel)', median_ms: round(median(col('rollout'))) },
    { name: 'of which, on the page: the grid figure (ImageData, PNG)', median_ms: round(median(col('gridDraw'))) },
    { name: 'file dropped → every view drawn', median_ms: round(median(col('all'))) },
    { name: 'the longest main-thread task meanwhile (drop → every view drawn)', median_ms: round(median(col('longest'))) },
  ],
  frames_median: median(col('frames')),
}, null, 1));
