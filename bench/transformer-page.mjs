#!/usr/bin/env node
// The transformer page as a visitor uses it, in headless Chromium: open web/pages/transformer with a task's
// default settings, press Train, and time how long until the page reports the task's target met (the
// induction task: a head's prefix-matching score ≥ its target; the reversal: held-out token accuracy ≥ its
// target), read from the page itself (#reading[data-reached], the step; the wall time from the click).
// The characters task has no target: it trains for --chars-seconds and records the held-out loss and a
// generated sample. Wall-clock seconds on whatever machine runs it (this is a measurement, never a test).
//   node bench/transformer-page.mjs [--timeout 180] [--chars-seconds 60] [--seeds 1] > bench/results/transformer-page.json
import { cpus, loadavg } from 'node:os';
import { setup } from '../scripts/browser-harness.mjs';

const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const TIMEOUT = Number(arg('--timeout', 180));
const CHARS = Number(arg('--chars-seconds', 60));
const SEEDS = String(arg('--seeds', '1')).split(',').map(Number);
const TASKS = String(arg('--tasks', 'induction,reversal,characters')).split(',');

const h = await setup();
const results = [];
try {
  for (const task of TASKS) {
    for (const seed of SEEDS) {
      const context = await h.newContext({ viewport: { width: 1366, height: 768 } });
      const page = await context.newPage();
      await page.goto(`${h.server.url}transformer.html#task=${task}&seed=${seed}`);
      await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
      await page.waitForFunction(() => !document.body.classList.contains('computing'), null, { timeout: 60000 });
      const t0 = Date.now();
      await page.click('#play');
      const entry = { task, seed };
      if (task === 'characters') {
        await page.waitForTimeout(CHARS * 1000);
        await page.click('#play');
        await page.waitForFunction(() => !document.body.classList.contains('computing'), null, { timeout: 60000 });
        entry.seconds = (Date.now() - t0) / 1000;
        entry.steps = Number(await page.$eval('#step-count', (e) => e.dataset.steps));
        entry.reading = await page.$eval('#reading', (e) => e.textContent);
        await page.click('#gen-run');
        await page.waitForFunction(() => document.querySelector('#generated').textContent.length > 0, null, { timeout: 60000 });
        entry.sample = await page.$eval('#generated', (e) => e.textContent);
      } else {
        const ok = await page.waitForFunction(() => document.querySelector('#reading').dataset.reached, null, { timeout: TIMEOUT * 1000, polling: 200 })
          .then(() => true, () => false);
        entry.seconds = (Date.now() - t0) / 1000;
        entry.reached = ok;
        entry.reachedAtStep = ok ? Number(await page.$eval('#reading', (e) => e.dataset.reached)) : null;
        entry.steps = Number(await page.$eval('#step-count', (e) => e.dataset.steps));
        entry.reading = await page.$eval('#reading', (e) => e.textContent);
      }
      process.stderr.write(`${task} seed ${seed}: ${JSON.stringify(entry)}\n`);
      results.push(entry);
      await context.close();
    }
  }
} finally {
  await h.close();
}
console.log(JSON.stringify({
  benchmark: 'the transformer page in headless Chromium, default settings: wall time from Train to the task\'s target (read from the page)',
  date: new Date().toISOString(), chromium: h.browser.version(), cpu: cpus()[0].model, cores: cpus().length, loadavg: loadavg(),
  timeoutSeconds: TIMEOUT, results,
}, null, 2));
