// The model page on the red team's big files, in headless Chromium: a deflated .npz of one-hot rows
// (a few hundred KB that holds up to 2^26 numbers), shape given on the command line, dropped once on
// a fresh page. Reports the page's own measures (web/model.js: the worker's parse, summaries and
// rollout; drop → grid drawn, → every view drawn), the main thread's long tasks (the browser's, over
// 50 ms; start relative to the drop) and the animation frames drawn meanwhile, and what the page says
// (file info, the grid's note, the rollout's caption). Never asserted (shared, noisy machine):
// tests/e2e/model-worker.test.mjs checks what the page does, not how fast.
//   node bench/model-big.mjs [--shape 16,1,2048,2048] [--web DIR]
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { root, startServer } from '../scripts/browser-harness.mjs';
import { npy, npyStrings, zip } from '../tests/js/attention-files.mjs';
import { header, launch, openPage, option } from './browser.mjs';

const folder = option('web');
const [L, H, N] = (option('shape') || '16,1,2048,2048').split(',').map(Number);
if (!existsSync(join(folder || join(root, 'dist/web'), 'model.html'))) throw new Error('model.html is missing: run `npm run build` first');

const A = new Float32Array(L * H * N * N);
for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) for (let i = 0; i < N; i++) A[((l * H + h) * N + i) * N + ((i + l + h) % N)] = 1;
const bytes = zip({ 'attentions.npy': npy(A, [L, H, N, N]), 'tokens.npy': npyStrings(Array.from({ length: N }, (_, i) => `t${i}`)) }, { deflate: true });

const server = await startServer(folder);
const browser = await launch();
let out;
try {
  const page = await openPage(browser, server.url + 'model.html', 'body.model-ready', { pageErrors: true });
  // The file is made in the page first (its base64 decoded), so that the drop starts the clock.
  await page.evaluate((b64) => {
    const bin = atob(b64);
    const u8 = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    window.__bigFile = new File([u8], 'big.npz');
  }, Buffer.from(bytes).toString('base64'));
  await page.waitForTimeout(300);
  const r = await page.evaluate(() => new Promise((resolve) => {
    const long = [];
    const observer = new PerformanceObserver((l) => { for (const e of l.getEntries()) long.push(e); });
    observer.observe({ type: 'longtask' });
    let frames = 0, counting = true;
    const tick = () => { if (counting) { frames++; requestAnimationFrame(tick); } };
    requestAnimationFrame(tick);
    const t0 = performance.now();
    document.addEventListener('model-loaded', () => {
      const loaded = performance.now() - t0;
      counting = false;
      const last = (name) => { const e = performance.getEntriesByName(`attnscope:model-${name}`); return e.length ? e[e.length - 1].duration : null; };
      const measures = Object.fromEntries(['parse', 'thumbnails', 'summaries', 'rollout', 'file-to-grid', 'file-to-all'].map((n) => [n, last(n)]));
      // The figures draw in the next frames: their tasks are counted too.
      setTimeout(() => {
        for (const e of observer.takeRecords()) long.push(e);
        observer.disconnect();
        resolve({ loaded, frames, measures, longTasks: long.map((e) => [Math.round(e.startTime - t0), Math.round(e.duration)]),
          info: document.getElementById('file-info').textContent,
          gridNote: document.getElementById('grid-note').hidden ? null : document.getElementById('grid-note').textContent,
          rollout: document.querySelector('#figure-rollout .fig-caption').textContent });
      }, 1000);
    }, { once: true });
    const dt = new DataTransfer();
    dt.items.add(window.__bigFile);
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }));
  out = { ...header(), build: folder || 'dist/web', shape: [L, H, N, N], file_bytes: bytes.length, ...r };
  await page.context().close();
} finally {
  await browser.close();
  await server.stop();
}
console.log(JSON.stringify(out, null, 1));
