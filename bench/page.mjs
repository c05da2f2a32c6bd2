// Page benchmark: keystroke → plots redrawn in the demo, in headless Chromium.
//
// The page measures each update itself (web/demo.js: "attnscope:update" spans the input event to the
// end of the DOM update; "attnscope:paint" the browser's style, layout and paint work after it). This
// script serves dist/web/, types into the query box at several sentence lengths, warms up first (V8
// runs new wasm in a slower tier for its first ~100 ms of calls, and the page's own JS is cold) and
// prints JSON with the medians, which scripts/bench.sh stores as bench/results/page.json.
//
//   node bench/page.mjs [--quick] [--web DIR]   (DIR: another build of dist/web/, to compare two builds)
//   node bench/page.mjs --many-heads   only the many-heads case (quicker A/B comparisons)
// A duration is never asserted anywhere: the machine is shared and noisy, and the tests in tests/e2e
// only check that typing updates the plots.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { root, startServer } from '../scripts/browser-harness.mjs';
import { header, launch, openPage, option, mainThreadTasks, typeAndErase, TRACE_CATEGORIES } from './browser.mjs';

const quick = process.argv.includes('--quick');
const webDir = option('web');
const manyHeadsOnly = process.argv.includes('--many-heads');
const SIZES = manyHeadsOnly ? [] : [40, 128];                         // tokens asked for (the page may cut; "tokens" says what it drew)
const WARMUP_MS = quick ? 1000 : 1500;
const KEYSTROKES = quick ? 20 : 40;

if (!existsSync(join(root, 'dist/web/index.html'))) throw new Error('dist/web/ is missing: run `npm run build` first');

const words = 'the quick brown fox jumps over a lazy dog while seven small birds sing in the old tree by the river'.split(' ');
const sentence = (n) => Array.from({ length: n - 1 }, (_, i) => words[i % words.length]).join(' ') + '.';
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.floor(s.length / 2)] : null; };
const p90 = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * 0.9))] : null; };
const round = (x) => (x === null ? null : Math.round(x * 1000) / 1000);

/** From now on, collects the page's own update/paint/frame measures into window.__bench (the page
 * trims its performance buffer now and then, so they are taken as they come). */
function collectMeasures(page) {
  return page.evaluate(() => {
    window.__bench?.observer.disconnect();
    window.__bench?.longtasks.disconnect();
    // figures: every figure's redraw ("attnscope:<figure>", base.js runJob), by figure; tasks: the
    // main thread's long tasks (≥ 50 ms, the browser's threshold) as [start, duration].
    const b = { update: [], paint: [], frame: [], figures: {}, tasks: [] };
    const FIGURES = ['heatmap', 'heatmapLarge', 'selection', 'headsum', 'why', 'lines', 'heads', 'compare'];
    b.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = e.name.replace('attnscope:', '');
        if (b[kind] && kind !== 'figures' && kind !== 'tasks') b[kind].push(e.duration);
        else if (FIGURES.includes(kind)) (b.figures[kind] ||= []).push(e.duration);
      }
    });
    b.observer.observe({ type: 'measure' });
    b.longtasks = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) b.tasks.push([e.startTime, e.duration]);
    });
    b.longtasks.observe({ type: 'longtask' });
    window.__bench = b;
  });
}

const loadAtStart = loadavg();   // the machine is shared: say how busy it was
const server = await startServer(webDir);
const browser = await launch();
const results = [];
try {
  const page = await openPage(browser, server.url, 'body.ready', { viewport: { width: 1366, height: 768 }, timeout: 30000 });
  const firstRender = await page.evaluate(() => performance.getEntriesByName('attnscope:first-render').map((e) => e.duration)[0]);

  for (const n of SIZES) {
    const text = sentence(n);
    const tail = ' and again';                   // typed, then erased, again and again
    await page.fill('#keys', '');
    await page.fill('#query', text);
    await page.focus('#query');
    await page.keyboard.press('End');
    // Warm-up: type for at least WARMUP_MS before anything is recorded.
    const t0 = Date.now();
    while (Date.now() - t0 < WARMUP_MS) {
      await typeAndErase(page, tail, 10);
    }
    await page.waitForTimeout(100);
    // The page trims its performance buffer now and then: collect the measures as they come.
    await collectMeasures(page);
    let typed = 0;
    while (typed < KEYSTROKES) {
      await typeAndErase(page, tail, 30);
      typed += 2 * tail.length;
    }
    await page.waitForTimeout(200);
    const m = await page.evaluate(() => ({
      update: window.__bench.update, paint: window.__bench.paint, frame: window.__bench.frame,
      // Tokens drawn: the query's token strip (from 65 tokens the heatmap is the canvas one, and the
      // SVG heatmap, hidden, still holds the previous text's cells).
      rows: document.querySelectorAll('#query-tokens .chip').length,
      cells: document.getElementById('fig-heatmap').hidden ? null
        : document.querySelectorAll('#figure-heatmap svg.heatmap g.cells rect').length,
    }));
    results.push({
      name: `keystroke → plots redrawn, ${n} tokens asked`,
      tokensAsked: n,
      tokensShown: m.rows, cells: m.cells,
      updates: m.update.length,
      update_median_ms: round(median(m.update)), update_p90_ms: round(p90(m.update)),
      paint_median_ms: round(median(m.paint)), frame_median_ms: round(median(m.frame)),
    });
  }
  // Many heads (issue 15): 64 + 64 tokens, 10 heads of a random projection; each change of the scoring
  // function redraws every figure. Measured as above, over CHANGES changes after the warm-up.
  {
    const q = sentence(64), k = sentence(64).split(' ').reverse().join(' ');
    await page.goto(`${server.url}#q=${encodeURIComponent(q)}&k=${encodeURIComponent(k)}&heads=10&proj=random&seed=3`);
    await page.waitForSelector('body.ready', { timeout: 30000 });
    const scores = ['dot', 'scaled-dot', 'cosine', 'neg-euclidean'];
    const starts = [];
    const change = async (i) => {
      starts.push(await page.evaluate(() => { performance.mark('bench:change'); return performance.now(); }));
      await page.selectOption('#score', scores[i % scores.length]);
      await page.waitForFunction(() => !document.body.classList.contains('computing'), null, { timeout: 30000 });
      await page.waitForTimeout(60);
    };
    const t0 = Date.now();
    for (let i = 0; Date.now() - t0 < WARMUP_MS; i++) await change(i);
    await collectMeasures(page);
    starts.length = 0;
    const CHANGES = quick ? 8 : 20;
    for (let i = 0; i < CHANGES; i++) await change(i + 1);
    await page.waitForTimeout(300);
    const m = await page.evaluate(() => ({ update: window.__bench.update, paint: window.__bench.paint, frame: window.__bench.frame,
      figures: window.__bench.figures, tasks: window.__bench.tasks, elements: document.querySelectorAll('*').length }));
    // Then the same changes again under a trace (which slows the page, so the measures above come
    // from the untraced run): every main-thread task of each change, however short.
    await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    for (let i = 0; i < CHANGES; i++) await change(i + 1);
    await page.waitForTimeout(300);
    await page.evaluate(() => performance.mark('bench:change'));   // closes the last change's window
    const perChange = mainThreadTasks(await browser.stopTracing(), 'bench:change').slice(0, CHANGES);
    // The longest task of each change: from its start to the next change's (0: none of 50 ms or more).
    const longest = starts.slice(0, CHANGES).map((t, k) => Math.max(0, ...m.tasks.filter(([s0]) => s0 >= t && (k + 1 >= starts.length || s0 < starts[k + 1])).map(([, d]) => d)));
    const figureMedians = Object.fromEntries(Object.entries(m.figures).map(([name, a]) => [name, round(median(a))]));
    results.push({
      name: 'change of scoring function, 64 + 64 tokens, 10 heads (random projection)', manyHeads: true, changes: CHANGES,
      elements: m.elements, updates: m.update.length,
      update_median_ms: round(median(m.update)), update_p90_ms: round(p90(m.update)),
      paint_median_ms: round(median(m.paint)), frame_median_ms: round(median(m.frame)),
      figure_median_ms: figureMedians, figure_runs: Object.fromEntries(Object.entries(m.figures).map(([name, a]) => [name, a.length])),
      longest_task_median_ms: round(median(longest)), longest_task_max_ms: round(Math.max(...longest)),
      // From a trace (every task, not only those over 50 ms): the page's longest main-thread task per
      // change (one frame's budget is 16.7 ms) and its main-thread time per change in all.
      main_longest_task_median_ms: round(median(perChange.map((c) => c.longest))),
      main_longest_task_p90_ms: round(p90(perChange.map((c) => c.longest))),
      main_busy_median_ms: round(median(perChange.map((c) => c.busy))),
    });
  }
  results.push({ name: 'first render after navigation (module + vocabulary + plots)', first_render_ms: round(firstRender) });
  await page.context().close();
} finally {
  await browser.close();
  await server.stop();
}

console.log(JSON.stringify({
  ...header({ load: loadAtStart }), viewport: '1366×768', warmup_ms: WARMUP_MS, keystrokes: KEYSTROKES,
  note: 'headless, software rendering; update = input event to DOM updated, paint = style/layout/paint after it',
  results,
}, null, 1));
