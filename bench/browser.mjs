// What the browser benchmarks (bench/page.mjs, page-scale.mjs, element.mjs, model.mjs, model-big.mjs, lab-page.mjs,
// lab-prototypes.mjs) share: headless Chromium launched as the e2e tests launch it, a page opened once ready, text typed and erased in it, the header of
// their JSON (when, on what machine, how busy it was, which browser), `--web DIR` (another build's
// dist/web, to compare two builds under the same load), and for the lab pages the long-task observer
// and the run "click Train, poll every animation frame until 500 steps, report the longest task".
// Nothing here measures by itself; the numbers come from the pages (performance.now, PerformanceObserver).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../scripts/browser-harness.mjs';

export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium with the e2e tests' flags. */
export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** The browser's own version line ("Chromium 1xx… built on …"), or 'unknown'. */
export function browserVersion() {
  try { return execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { return 'unknown'; }
}

/**
 * The start of every browser benchmark's JSON: { date (YYYY-MM-DD), cpu, cores, loadavg (1, 5 and 15
 * minutes), browser }. `load`: a loadavg() taken earlier (at the start of the run), else now.
 */
export function header({ load = loadavg() } = {}) {
  return {
    date: new Date().toISOString().slice(0, 10), cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length,
    loadavg: load.map((x) => Math.round(x * 100) / 100), browser: browserVersion(),
  };
}

/** The value after `--name` on the command line (`--web DIR`), or undefined. */
export function option(name, argv = process.argv) {
  const i = argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < argv.length ? argv[i + 1] : undefined;
}

/**
 * A page in a new context of `browser` (a `viewport`), at `url`, once `ready` (a selector) is on it;
 * `pageErrors`: an error thrown in the page ends the benchmark. Close it with page.context().close().
 */
export async function openPage(browser, url, ready, { viewport = { width: 1440, height: 900 }, timeout = 60000, pageErrors = false } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  if (pageErrors) page.on('pageerror', (e) => { throw e; });
  await page.goto(url);
  await page.waitForSelector(ready, { timeout });
  return page;
}

/** Types `tail` into the focused text box, then erases it key by key: `delay` ms between keys. */
export async function typeAndErase(page, tail, delay) {
  await page.keyboard.type(tail, { delay });
  for (let i = 0; i < tail.length; i++) await page.keyboard.press('Backspace', { delay });
}

export const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.floor(s.length / 2)] : null; };

/**
 * Starts collecting the page's long tasks (PerformanceObserver 'longtask': main-thread tasks over
 * 50 ms) into window.__longTasks (durations, ms). Call once per page.
 */
export function observeLongTasks(page) {
  return page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: 'longtask' });
  });
}

/**
 * In a lab page (web/lab.html or web/lab-prototypes.html, after Start over): clears the long tasks,
 * clicks #play, polls every animation frame until #step-count's data-steps reaches `steps`, and
 * resolves { ms_to_500_steps, frames, long_tasks, longest_task_ms } (0 = no task over 50 ms).
 * `pause`: click #play again at the end (stops the training); `round`: whole milliseconds.
 */
export function trainUntil(page, { steps = 500, pause = false, round = false } = {}) {
  return page.evaluate(({ steps, pause, round }) => new Promise((resolve) => {
    window.__longTasks.length = 0;
    const t0 = performance.now();
    const r = round ? Math.round : (x) => x;
    let frames = 0;
    const poll = () => {
      frames++;
      if (Number(document.getElementById('step-count').dataset.steps) >= steps) {
        if (pause) document.getElementById('play').click();
        resolve({ ms_to_500_steps: r(performance.now() - t0), frames, long_tasks: window.__longTasks.length,
          longest_task_ms: window.__longTasks.length ? r(Math.max(...window.__longTasks)) : 0 });
      } else requestAnimationFrame(poll);
    };
    document.getElementById('play').click();
    requestAnimationFrame(poll);
  }), { steps, pause, round });
}

/**
 * The page's main-thread tasks, from a Chromium trace (`browser.startTracing(page, { categories:
 * TRACE_CATEGORIES })` … `stopTracing()`), cut into windows at each `performance.mark(markName)` the
 * page made: for each window, { longest, busy } in ms — the longest task (the longest the page could
 * not answer a click or paint a frame: styles, layout and paint count, the worker does not) and the
 * sum of all tasks. Tasks under 50 ms are invisible to the 'longtask' observer; a trace sees them all.
 */
export const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing'];
export function mainThreadTasks(traceBuffer, markName) {
  const parsed = JSON.parse(traceBuffer.toString('utf8'));
  const events = parsed.traceEvents || parsed;
  const main = events.find((e) => e.name === 'thread_name' && e.args && e.args.name === 'CrRendererMain');
  if (!main) throw new Error('the trace has no renderer main thread');
  const marks = events.filter((e) => e.name === markName && e.pid === main.pid).map((e) => e.ts).sort((a, b) => a - b);
  const tasks = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.name === 'RunTask')
    .sort((a, b) => a.ts - b.ts);
  return marks.map((t0, k) => {
    const t1 = k + 1 < marks.length ? marks[k + 1] : Infinity;
    let longest = 0, busy = 0, end = -Infinity;
    for (const e of tasks) {
      if (e.ts < t0 || e.ts >= t1) continue;
      longest = Math.max(longest, e.dur);
      if (e.ts >= end) { busy += e.dur; end = e.ts + e.dur; }   // a task nested in another counts once
    }
    return { longest: longest / 1000, busy: busy / 1000 };
  });
}

/**
 * Runs in the page (tfjsPage installs it as window.timeCases): each case's run() (sync or async) warmed
 * up for ≥ 1 s (V8 runs new wasm in a slower tier first), then `rounds` rounds in which the cases take
 * turns, the order flipped every round, each case's turn ≥ 20 ms of calls (the page's timer is
 * coarsened to 100 µs). Returns { [case name]: the median ms per call, to the µs }.
 */
async function timeCases(cases, rounds) {
  for (const c of cases) {
    const t0 = performance.now();
    let calls = 0;
    while (performance.now() - t0 < 1000 || calls < 3) { const r = c.run(); if (r instanceof Promise) await r; calls++; }
    c.per = (performance.now() - t0) / calls;
    c.times = [];
  }
  for (let r = 0; r < rounds; r++) {
    for (const c of r % 2 ? [...cases].reverse() : cases) {
      const calls = Math.max(1, Math.ceil(20 / c.per));
      const t0 = performance.now();
      for (let i = 0; i < calls; i++) { const p = c.run(); if (p instanceof Promise) await p; }
      c.times.push((performance.now() - t0) / calls);
    }
  }
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
  return Object.fromEntries(cases.map((c) => [c.name, Math.round(median(c.times) * 1000) / 1000]));
}

/**
 * A page for benchmarks against TF.js in the same page: `site` (a folder, made anew) holds dist/'s modules
 * and wasm files (and `extra` file names of dist/), TF.js's script bundles (core or with `union` the whole
 * of TF.js, `converter` when asked,
 * the wasm backend), its wasm files and `copies` ([from, relative to] pairs); index.html sets TF.js's wasm backend up (SIMD, one thread: the
 * page is not cross-origin isolated), defines window.timeCases (above) and then runs `setup`, module code that sets window.bench. Resolves
 * { page, close } once the page says it is ready.
 */
export async function tfjsPage({ site, setup, converter = false, union = false, extra = [], copies = [], timeout = 60000 }) {
  const { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } = await import('node:fs');
  const { createRequire } = await import('node:module');
  const { dirname, join } = await import('node:path');
  const { root, startServer } = await import('../scripts/browser-harness.mjs');
  const require = createRequire(import.meta.url);
  rmSync(site, { recursive: true, force: true });
  mkdirSync(site, { recursive: true });
  for (const f of readdirSync(join(root, 'dist'))) if (/\.(mjs|wasm)$/.test(f) || extra.includes(f)) copyFileSync(join(root, 'dist', f), join(site, f));
  const pkg = (name) => dirname(require.resolve(`${name}/package.json`));
  // `union`: the whole of TF.js (the `tf` bundle of @tensorflow/tfjs), whose core has the gradients and
  // chained methods that the tfjs-core bundle leaves out (what training needs).
  const scripts = [union ? ['@tensorflow/tfjs', 'tf'] : ['@tensorflow/tfjs-core', 'tf-core'], ...(converter ? [['@tensorflow/tfjs-converter', 'tf-converter']] : []), ['@tensorflow/tfjs-backend-wasm', 'tf-backend-wasm']];
  for (const [name, file] of scripts) copyFileSync(join(pkg(name), `dist/${file}.es2017.min.js`), join(site, `${file}.js`));
  for (const f of ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm']) copyFileSync(join(pkg('@tensorflow/tfjs-backend-wasm'), 'dist', f), join(site, f));
  for (const [from, to] of copies) {
    mkdirSync(dirname(join(site, to)), { recursive: true });
    copyFileSync(from, join(site, to));
  }
  writeFileSync(join(site, 'index.html'), `<!doctype html><meta charset="utf-8"><title>benchmark</title>
${scripts.map(([, file]) => `<script src="${file}.js"></script>`).join('')}
<script type="module">
tf.wasm.setWasmPaths(new URL('./', location.href).href);
tf.wasm.setThreadsCount(1);
await tf.setBackend('wasm');
await tf.ready();
window.timeCases = ${timeCases};
${setup}
document.title = 'ready';
</script>`);
  const server = await startServer(site);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => document.title === 'ready', null, { timeout });
    return { page, close: async () => { await browser.close(); await server.stop(); } };
  } catch (e) {
    await browser.close();
    await server.stop();
    throw e;
  }
}

/**
 * A tfjsPage for A/Bs against TF.js: bench.scopes holds attnscope's default scope (`default`: relaxed
 * SIMD in Chromium), one on the plain SIMD module (`simd`) and, with `baseline` (another build's
 * dist/), that build's default scope (`before`; null without), each created with `scopeOptions` (code,
 * e.g. '{ preload: true }'); `files` names more of dist/'s files (and the baseline's) the scopes read.
 * Resolves { page, close, info }: info names the builds and TF.js's backend, as the results record them.
 */
export async function scopesPage({ site, baseline, files = [], scopeOptions = '', timeout }) {
  const { readdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const o = scopeOptions;
  const { page, close } = await tfjsPage({
    site, extra: files, timeout,
    copies: baseline ? readdirSync(baseline).filter((f) => /\.(mjs|wasm)$/.test(f) || files.includes(f)).map((f) => [join(baseline, f), `baseline/${f}`]) : [],
    setup: `const { createAttnScope } = await import('./attnscope.mjs');
const before = ${baseline ? `await (await import('./baseline/attnscope.mjs')).createAttnScope(${o})` : 'null'};
window.bench = { tf, scopes: { default: await createAttnScope(${o}), simd: await createAttnScope({ simd: true, ...${o || '{}'} }), before } };`,
  });
  try {
    const info = await page.evaluate(async () => ({
      attnscope: bench.scopes.default.variants.build, plain: bench.scopes.simd.variants.build,
      tfjs: { version: bench.tf.version_core, backend: bench.tf.getBackend(), simd: await bench.tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
        threads: await bench.tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT') },
      crossOriginIsolated: self.crossOriginIsolated,
    }));
    return { page, close, info };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * TF.js's time over each attnscope case of a scopesPage row (row.ms in the order default, plain SIMD,
 * TF.js, baseline), set on the row; returns the four times.
 */
export function tfjsRatios(row) {
  const [fast, plain, tfjs, before] = Object.values(row.ms);
  const r2 = (x) => Math.round(x * 100) / 100;
  row.tfjs_over_attnscope = r2(tfjs / fast);
  row.tfjs_over_attnscope_simd = r2(tfjs / plain);
  if (before !== undefined) row.tfjs_over_baseline = r2(tfjs / before);
  return { fast, plain, tfjs, before };
}

/** Writes a scopesPage benchmark's result file (the machine, the loads, the builds, the rows) to `out`. */
export function writeScopesResult(out, { benchmark, load, baseline, batches, info, results }) {
  const json = { benchmark, ...header({ load }), ...(baseline ? { baseline } : {}), loadavg_end: loadavg().map((x) => Math.round(x * 100) / 100),
    batches, ...info, results };
  writeFileSync(out, JSON.stringify(json, null, 2) + '\n');
  console.error(`written ${out}`);
}
