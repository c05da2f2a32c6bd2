// Page benchmark for long documents (issue 11), in headless Chromium (launched as bench/page.mjs does):
//   1. paste of 2,000 × 2,000 tokens → first complete picture (the canvas heatmap fully coloured),
//      and → every figure drawn (the second answer of the worker too);
//   2. zoom and pan of the canvas heatmap: the time to draw one frame of the detail, and the interval
//      between animation frames while dragging;
//   3. keystroke → heatmap redrawn at 128 tokens ("attnscope:update", as bench/page.mjs);
//   4. PerformanceObserver 'longtask' on the main thread while a 2,000-token computation runs.
// Medians after at least 1 s of warm-up. Prints JSON (scripts/bench.sh stores it as
// bench/results/page-scale.json; node bench/tables.mjs renders its table in docs/benchmarks.md).
// Never asserted in a test: the machine is shared and noisy.
//   node bench/page-scale.mjs [--quick] [--web DIR]   (DIR: another build of dist/web/, to compare two builds)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { root, startServer } from '../scripts/browser-harness.mjs';
import { header, launch, openPage, option, typeAndErase } from './browser.mjs';

const quick = process.argv.includes('--quick');
const webDir = option('web');
const WARMUP_MS = 1000;
const PASTES = quick ? 3 : 7;
const KEYSTROKES = quick ? 20 : 40;

if (!existsSync(join(root, 'dist/web/index.html'))) throw new Error('dist/web/ is missing: run `npm run build` first');

const words = 'the quick brown fox jumps over a lazy dog while seven small birds sing in the old tree by the river'.split(' ');
const doc = (n, offset = 0) => Array.from({ length: n - 1 }, (_, i) => words[(i + offset) % words.length]).join(' ') + '.';
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.floor(s.length / 2)] : null; };
const p90 = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * 0.9))] : null; };
const round = (x) => (x === null || x === undefined ? null : Math.round(x * 10) / 10);
const settled = (page) => page.waitForFunction(() => document.body.classList.contains('ready') && !document.body.classList.contains('computing'), null, { timeout: 120000 });

/** In the page: sets the query, returns ms from the input event to the heatmap fully coloured and to every figure drawn. */
const pasteInPage = (text) => new Promise((resolve) => {
  const q = document.getElementById('query');
  const range = document.querySelector('#figure-heatmap-large .hmc-range');
  const longtasks = [], own = [];
  // The page's own synchronous work is measured per figure ("attnscope:<figure>", base.js runJob);
  // update, frame, paint and compute span waits for the worker or the display, not one task.
  const spans = new Set(['attnscope:update', 'attnscope:frame', 'attnscope:paint', 'attnscope:compute', 'attnscope:first-render']);
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.entryType === 'longtask') longtasks.push(e.duration);
      else if (e.name.startsWith('attnscope:') && !spans.has(e.name)) own.push([e.name.slice(10), e.duration]);
    }
  });
  obs.observe({ entryTypes: ['longtask', 'measure'] });
  const t0 = performance.now();
  q.value = text;
  q.dispatchEvent(new Event('input', { bubbles: true }));
  let picture = null;
  const check = () => {
    const now = performance.now();
    if (picture === null && !document.getElementById('fig-heatmap-large').hidden && /query rows 1–\d+ of 2000/.test(range.textContent)
      && !/Colouring/.test(range.textContent)) picture = now - t0;
    if (picture !== null && !document.body.classList.contains('computing')) {
      // The figures out of view are drawn afterwards, one per idle period (figures/base.js), and long
      // tasks are reported a little after they end: collect until the page has been idle for three
      // whole idle periods in a row (no frame, no task pending), so that their tasks are counted too.
      const all = now - t0;
      let quiet = 0;
      const idle = (deadline) => {
        quiet = deadline.timeRemaining() >= 40 ? quiet + 1 : 0;
        if (quiet < 3) { requestIdleCallback(idle); return; }
        obs.disconnect();
        resolve({ picture, all, longtasks, own });
      };
      setTimeout(() => requestIdleCallback(idle), 50);
      return;
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
});

const server = await startServer(webDir);
const browser = await launch();
const results = [];
try {
  const page = await openPage(browser, server.url, 'body.ready');
  await page.fill('#keys', '');
  await settled(page);

  // 1 and 4: pastes of 2,000-token documents (each one different, so nothing is reused).
  let offset = 0;
  const paste = async () => {
    await page.fill('#query', 'a');
    await settled(page);
    const r = await page.evaluate(pasteInPage, doc(2000, ++offset));
    await settled(page);
    return r;
  };
  const t0 = Date.now();
  while (Date.now() - t0 < WARMUP_MS) await paste();
  const pastes = [];
  for (let k = 0; k < PASTES; k++) pastes.push(await paste());
  const lt = pastes.flatMap((p) => p.longtasks);
  results.push({
    name: 'paste 2,000 × 2,000 tokens → heatmap fully coloured', runs: pastes.length,
    median_ms: round(median(pastes.map((p) => p.picture))), p90_ms: round(p90(pastes.map((p) => p.picture))),
  });
  results.push({
    name: 'paste 2,000 × 2,000 tokens → every figure drawn', runs: pastes.length,
    median_ms: round(median(pastes.map((p) => p.all))), p90_ms: round(p90(pastes.map((p) => p.all))),
  });
  results.push({
    name: 'main-thread long tasks (> 50 ms) per 2,000-token paste', runs: pastes.length,
    longtasks_per_paste: round(lt.length / pastes.length), longtask_max_ms: round(lt.length ? Math.max(...lt) : 0),
    longtask_median_ms: round(median(lt)),
  });
  // attnscope's own tasks: the longest per figure (median over the pastes of each paste's longest).
  const names = [...new Set(pastes.flatMap((p) => p.own.map((o) => o[0])))];
  const perFigure = {};
  for (const n of names) perFigure[n] = round(median(pastes.map((p) => Math.max(0, ...p.own.filter((o) => o[0] === n).map((o) => o[1])))));
  const ownMax = pastes.map((p) => Math.max(0, ...p.own.map((o) => o[1])));
  results.push({
    name: "attnscope's longest main-thread task per 2,000-token paste (one figure's drawing)", runs: pastes.length,
    median_ms: round(median(ownMax)), p90_ms: round(p90(ownMax)), per_figure_median_ms: perFigure,
  });

  // 2: zoom and pan. Frame = the figure's own drawing of the detail ("attnscope:heatmap-frame");
  // interval = time between animation frames while a drag pans the detail.
  const canvas = page.locator('#figure-heatmap-large canvas.hmc-detail');
  await canvas.scrollIntoViewIfNeeded();
  await page.evaluate(() => performance.clearMeasures());
  await canvas.focus();
  const z0 = Date.now();
  while (Date.now() - z0 < WARMUP_MS) { await page.keyboard.press('+'); await page.keyboard.press('-'); }
  await page.evaluate(() => {
    performance.clearMeasures();
    window.__frames = [];
    let last = performance.now();
    const tick = () => { const n = performance.now(); window.__frames.push(n - last); last = n; window.__raf = requestAnimationFrame(tick); };
    window.__raf = requestAnimationFrame(tick);
  });
  for (let k = 0; k < 8; k++) await page.keyboard.press('+');
  const box = await canvas.boundingBox();
  for (let k = 0; k < 4; k++) {
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 200, box.y + box.height / 2 - 150, { steps: 20 });
    await page.mouse.up();
    await page.mouse.wheel(0, k % 2 ? 200 : -200);
    for (const key of ['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp']) await page.keyboard.press(key);
  }
  const zp = await page.evaluate(() => {
    cancelAnimationFrame(window.__raf);
    return { draw: performance.getEntriesByName('attnscope:heatmap-frame').map((e) => e.duration), frames: window.__frames.slice(1) };
  });
  results.push({
    name: 'zoom and pan, 2,000 × 2,000: drawing one frame of the detail', frames: zp.draw.length,
    median_ms: round(median(zp.draw)), p90_ms: round(p90(zp.draw)),
  });
  results.push({
    name: 'zoom and pan, 2,000 × 2,000: interval between animation frames', frames: zp.frames.length,
    median_ms: round(median(zp.frames)), p90_ms: round(p90(zp.frames)),
  });

  // 3: keystrokes at 128 tokens.
  const text = doc(128);
  const tail = ' and again';
  await page.fill('#query', text);
  await settled(page);
  await page.focus('#query');
  await page.keyboard.press('End');
  const k0 = Date.now();
  while (Date.now() - k0 < WARMUP_MS) {
    await typeAndErase(page, tail, 10);
  }
  await settled(page);
  await page.evaluate(() => {
    window.__keys = { update: [], superseded: 0 };
    window.__keysObs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (e.name === 'attnscope:update') window.__keys.update.push(e.duration);
        if (e.name === 'attnscope:superseded') window.__keys.superseded++;
      }
    });
    window.__keysObs.observe({ entryTypes: ['measure', 'mark'] });
  });
  let typed = 0;
  while (typed < KEYSTROKES) {
    await typeAndErase(page, tail, 30);
    typed += 2 * tail.length;
  }
  await settled(page);
  const keys = await page.evaluate(() => { window.__keysObs.disconnect(); return window.__keys; });
  results.push({
    name: 'keystroke → heatmap redrawn, 128 tokens', keystrokes: typed, drawn: keys.update.length, superseded: keys.superseded,
    median_ms: round(median(keys.update)), p90_ms: round(p90(keys.update)),
  });
  await page.context().close();
} finally {
  await browser.close();
  await server.stop();
}

console.log(JSON.stringify({
  ...header(), viewport: '1440×900', warmup_ms: WARMUP_MS,
  note: 'headless, software rendering; the wasm runs in a module worker; medians',
  results,
}, null, 1));
