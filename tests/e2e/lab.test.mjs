// The attention lab (web/lab.html) in Chromium: training the previous-word rule raises held-out
// accuracy far above chance within 300 steps (a count, never a time); pause stops the steps, "+5
// steps" adds exactly five, the slider redraws a saved step (step 0 = the untrained head); the page
// works offline once its service worker has saved it; screenshots at 1440×900 and on a 390×844 phone.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setup, outDir } from './harness.mjs';

let h;
before(async () => { h = await setup(); });
after(async () => { if (h) await h.close(); });

async function openLab(context) {
  const page = h.watch(await context.newPage());
  await page.goto(h.server.url + 'lab.html');
  await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
  return page;
}
const steps = (p) => p.$eval('#step-count', (e) => Number(e.dataset.steps));
const accuracy = (p) => p.$eval('#accuracy', (e) => ({ accuracy: Number(e.dataset.accuracy), chance: Number(e.dataset.chance) }));
// The fill of every cell of a heatmap: what the reader sees.
const fills = (p, slot) => p.$$eval(`#${slot} svg.heatmap g.cells rect`, (rs) => rs.map((r) => r.getAttribute('fill') || getComputedStyle(r).fill));
async function setSlider(p, value) {
  await p.$eval('#view-step', (e, v) => { e.value = String(v); e.dispatchEvent(new Event('input', { bubbles: true })); }, value);
}

describe('lab', () => {
  test('train the previous-word rule: accuracy rises above chance within 300 steps; pause, step and the slider work', async () => {
    const context = await h.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = await openLab(context);
      assert.equal(await page.$eval('#rule', (e) => e.value), 'previous');
      assert.equal(await page.$eval('#score', (e) => e.value), 'scaled-dot');
      const start = await accuracy(page);
      assert.ok(start.chance > 0.05 && start.chance < 0.3, `chance ${start.chance}`);
      assert.ok(start.accuracy < 2 * start.chance, `untrained: ${start.accuracy} (chance ${start.chance})`);
      await page.screenshot({ path: join(outDir, 'lab-1440-before.png') });

      await page.click('#play');
      // Pause from inside the page as soon as 300 steps are done (training is fast: a click from here
      // could arrive after the run's last step).
      await page.waitForFunction(() => {
        if (Number(document.getElementById('step-count').dataset.steps) < 300) return false;
        document.getElementById('play').click();
        return true;
      }, null, { timeout: 120000, polling: 'raf' });
      assert.equal(await page.textContent('#play'), 'Train');
      const paused = await steps(page);
      assert.ok(paused >= 300 && paused < 500 && paused % 5 === 0, `paused at ${paused}`);
      const trained = await accuracy(page);
      assert.ok(trained.accuracy > 0.7 && trained.accuracy > 3 * trained.chance,
        `after ${paused} steps: held-out accuracy ${trained.accuracy} (chance ${trained.chance})`);
      // Paused: nothing moves however many frames pass.
      await page.evaluate(() => new Promise((r) => { let n = 0; const f = () => (++n < 20 ? requestAnimationFrame(f) : r()); requestAnimationFrame(f); }));
      assert.equal(await steps(page), paused, 'no steps while paused');
      // +5 steps: exactly five more.
      await page.click('#step');
      assert.equal(await steps(page), paused + 5);
      assert.equal(await page.$eval('#view-step', (e) => Number(e.dataset.step)), paused + 5, 'the slider follows the newest step');

      // The slider: step 0 shows the untrained head (the same picture as "before"), the last step another.
      const before0 = await fills(page, 'held-before');
      const now = await fills(page, 'held-after');
      assert.ok(before0.length > 4);
      assert.notDeepEqual(now, before0, 'trained and untrained heads differ');
      await setSlider(page, 0);
      assert.equal(await page.textContent('#view-label'), '0');
      assert.match(await page.textContent('#figure-lab-held-after-title'), /At step 0$/);
      assert.deepEqual(await fills(page, 'held-after'), before0, 'step 0 = before training');
      await setSlider(page, 10);
      assert.equal(await page.textContent('#view-label'), '50');
      assert.match(await page.textContent('#figure-lab-held-after-title'), /At step 50$/);
      // Typing one's own sentence redraws its pair.
      await page.fill('#own-sentence', 'My cat sleeps on the warm mat');
      assert.equal(await page.locator('#own-after svg.heatmap g.cells rect').count(), 49, 'seven words: 7 × 7 cells');
      await setSlider(page, (paused + 5) / 5);
      await page.screenshot({ path: join(outDir, 'lab-1440.png'), fullPage: true });
      assert.deepEqual(h.log.pageErrors, []);
      assert.deepEqual(h.log.outside, [], 'nothing requested outside the page origin');
    } finally { await context.close(); }
  });

  test('on a 390×844 phone: the page fits its width and trains', async () => {
    const context = await h.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    try {
      const page = await openLab(context);
      await page.click('#step');
      await page.click('#step');
      assert.equal(await steps(page), 10);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow}px`);
      await page.screenshot({ path: join(outDir, 'lab-390.png'), fullPage: true });
      await page.screenshot({ path: join(outDir, 'lab-390-top.png') });
      await page.locator('#held-after').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(outDir, 'lab-390-heatmap.png') });
    } finally { await context.close(); }
  });

  test('offline: once saved by the service worker, the lab loads and trains with no network', async () => {
    const context = await h.newContext();
    try {
      const page = await openLab(context);
      await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 60000 });
      await context.setOffline(true);
      await page.reload();
      await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
      await page.click('#step');
      assert.equal(await steps(page), 5);
      assert.ok((await fills(page, 'held-after')).length > 4);
    } finally { await context.close(); }
  });
});
