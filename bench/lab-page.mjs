// The lab page in headless Chromium: from a click on Train to 500 steps done, with the loss curve and
// the four heatmaps redrawn as the worker's slices arrive, and the longest main-thread task while it
// trains (the PerformanceObserver's long tasks, > 50 ms; 0 = none that long). Runs 3 times (Start
// over in between); then part 2: a comparison of all ten scoring functions, 300 steps each, with the
// same measures. Prints JSON with every run and the medians; scripts/bench.sh stores it as
// bench/results/lab-page.json. Never asserted anywhere (the machine is shared and noisy).
//   node bench/lab-page.mjs [--web DIR]   (DIR: another build's dist/web, e.g. main's, to compare under the same load;
//   a bare DIR as the only argument works too)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { root, startServer } from '../scripts/browser-harness.mjs';
import { header, launch, median, observeLongTasks, openPage, option, trainUntil } from './browser.mjs';

const folder = option('web') ?? (process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : undefined);
if (!folder && !existsSync(join(root, 'dist/web/lab.html'))) throw new Error('dist/web/lab.html is missing: run `npm run build` first');
const RUNS = 3;
const load = loadavg();

const server = await startServer(folder);
const browser = await launch();
const runs = [], compareRuns = [];
try {
  const page = await openPage(browser, server.url + 'lab.html', '#status[data-ready="true"]');
  await observeLongTasks(page);
  for (let r = 0; r < RUNS; r++) {
    await page.click('#reset');
    await page.waitForFunction(() => !document.body.classList.contains('computing') && document.getElementById('step-count').dataset.steps === '0');
    runs.push(await trainUntil(page));
  }
  // Part 2: Compare, all ten functions, 300 steps each (the defaults); a build without it is skipped.
  const hasCompare = await page.$('#compare-run');
  for (let r = 0; hasCompare && r < RUNS; r++) {
    const run = await page.evaluate(() => new Promise((resolve) => {
      window.__longTasks.length = 0;
      const t0 = performance.now();
      const status = document.getElementById('compare-status');
      const poll = () => {
        if (status.dataset.state === 'done') {
          resolve({ ms_to_compare: performance.now() - t0, long_tasks: window.__longTasks.length,
            longest_task_ms: window.__longTasks.length ? Math.max(...window.__longTasks) : 0 });
        } else requestAnimationFrame(poll);
      };
      document.getElementById('compare-run').click();
      requestAnimationFrame(poll);
    }));
    compareRuns.push(run);
  }
} finally {
  await browser.close();
  await server.stop();
}
console.log(JSON.stringify({
  ...header({ load }),
  build: folder || 'dist/web', task: 'previous word, scaled-dot, defaults of web/lab.js', runs,
  median_ms_to_500_steps: Math.round(median(runs.map((r) => r.ms_to_500_steps))),
  median_longest_task_ms: Math.round(median(runs.map((r) => r.longest_task_ms))),
  compare: compareRuns.length === 0 ? null : { task: 'previous word, seed 1, all 10 scoring functions x 300 steps', runs: compareRuns,
    median_ms: Math.round(median(compareRuns.map((r) => r.ms_to_compare))),
    median_longest_task_ms: Math.round(median(compareRuns.map((r) => r.longest_task_ms))) },
}, null, 1));
