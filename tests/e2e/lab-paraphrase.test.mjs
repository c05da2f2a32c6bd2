// The attention lab's cross-attention rule (web/pages/lab/lab.html#rule=paraphrase) in Chromium: the queries come
// from a sentence and the keys from its paraphrase, so the heatmaps have the sentence's words as rows
// and the paraphrase's as columns; the user's own sentence gets a second box for its paraphrase (shown
// only for this rule). Training 300 steps (a count, never a time) raises held-out accuracy far above
// chance; Compare trains the pairs too. Training runs in the lab's worker: after an action the test waits for the page to settle.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setup, outDir, settled } from '../../scripts/browser-harness.mjs';

let h;
before(async () => { h = await setup(); });
after(async () => { if (h) await h.close(); });

const steps = (p) => p.$eval('#step-count', (e) => Number(e.dataset.steps));
const accuracy = (p) => p.$eval('#accuracy', (e) => ({ accuracy: Number(e.dataset.accuracy), chance: Number(e.dataset.chance) }));
const cells = (p, slot) => p.locator(`#${slot} svg.heatmap g.cells rect`).count();
const labels = (p, slot, which) => p.$$eval(`#${slot} svg.heatmap g.${which} text`, (ts) => ts.map((t) => t.textContent));

describe('lab, paraphrase rule (cross-attention)', () => {
  test('sentence rows × paraphrase columns; a second box for your own paraphrase; 300 steps lift held-out accuracy far above chance', async () => {
    const context = await h.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = h.watch(await context.newPage());
      await page.goto(h.server.url + 'lab.html#rule=paraphrase');
      await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
      await settled(page, 60000);
      assert.equal(await page.$eval('#rule', (e) => e.value), 'paraphrase');
      assert.equal(await page.isVisible('#own-paraphrase'), true, 'the paraphrase box is shown for this rule');
      assert.match(await page.textContent('#task-info'), /training pairs/);
      // The held-out pair: the option names both sentences; rows = the sentence's words, columns = the paraphrase's.
      const option = await page.$eval('#held-sentence', (e) => e.selectedOptions[0].textContent);
      const [sentence, paraphrase] = option.split(' → ');
      assert.ok(sentence && paraphrase, option);
      const words = (t) => t.match(/[A-Za-z0-9']+/g).length;
      assert.equal(await cells(page, 'held-after'), words(sentence) * words(paraphrase), `${sentence} / ${paraphrase}`);
      const start = await accuracy(page);
      assert.ok(start.chance > 0.05 && start.chance < 0.3, `chance ${start.chance}`);

      await page.click('#play');
      await page.waitForFunction(() => {
        if (Number(document.getElementById('step-count').dataset.steps) < 300) return false;
        document.getElementById('play').click();
        return true;
      }, null, { timeout: 120000, polling: 'raf' });
      await settled(page);
      const paused = await steps(page);
      assert.ok(paused >= 300 && paused <= 500, `paused at ${paused}`);
      const trained = await accuracy(page);
      assert.ok(trained.accuracy > 0.7 && trained.accuracy > 3 * trained.chance,
        `after ${paused} steps: held-out accuracy ${trained.accuracy} (chance ${trained.chance})`);
      assert.match(await page.textContent('#accuracy'), /\d+%/);
      // Position alone against this head (lab/rules.js): a baseline, and no shortcut named.
      const shortcut = await page.textContent('#shortcut');
      assert.match(shortcut, /^Position alone — always word 1 — gets \d+ of \d+ held-out targets right \(\d+%\); this head, at step \d+, \d+ of \d+\.$/, shortcut);

      // Your own pair: 5 words of the sentence × 6 of the paraphrase; the columns are the paraphrase's words.
      await page.fill('#own-sentence', 'The cat sat on mats');
      await page.fill('#own-paraphrase', 'On mats sat the small cat');
      await settled(page);
      assert.equal(await cells(page, 'own-after'), 30, '5 × 6 cells');
      assert.deepEqual(await labels(page, 'own-after', 'row-labels'), ['The', 'cat', 'sat', 'on', 'mats'], 'rows: your sentence');
      assert.deepEqual(await labels(page, 'own-after', 'col-labels'), ['On', 'mats', 'sat', 'the', 'small', 'cat'], 'columns: its paraphrase');
      assert.match(await page.textContent('#own-after figcaption'), /word of the paraphrase/);
      await page.locator('#own-after').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(outDir, 'lab-paraphrase-1440.png'), fullPage: true });

      // Another rule: the paraphrase box goes away and the heatmaps are square again.
      await page.selectOption('#rule', 'previous');
      await settled(page);
      assert.equal(await page.isVisible('#own-paraphrase'), false);
      assert.equal(await cells(page, 'own-after'), 25, 'your sentence alone: 5 × 5');
      assert.deepEqual(h.log.pageErrors, []);
      assert.deepEqual(h.log.outside, [], 'nothing requested outside the page origin');
    } finally { await context.close(); }
  });

  test('the pronoun rule: the page prints what position alone gets, and the head beats it without a shortcut', async () => {
    const context = await h.newContext({ viewport: { width: 1366, height: 768 } });
    try {
      const page = h.watch(await context.newPage());
      await page.goto(h.server.url + 'lab.html#rule=pronoun');
      await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
      await settled(page, 60000);
      await page.click('#play');
      await page.waitForFunction(() => Number(document.getElementById('step-count').dataset.steps) >= 500, null, { timeout: 120000 });
      await settled(page);
      const text = await page.textContent('#shortcut');
      // The numbers are node's (tests/js/lab-shortcut.test.mjs trains the same run): the head 8 of 9, position 3 of 9.
      assert.match(text, /^Position alone — always word 5 — gets 3 of 9 held-out targets right \(33%\); this head, at step 500, [89] of 9\.$/, text);
      assert.equal(await page.isVisible('#shortcut'), true);
      await page.locator('#shortcut').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(outDir, 'lab-pronoun-1366.png') });
      // Learn τ (#34 item 1): a new run whose readout names the learnt τ; the link says so.
      await page.selectOption('#score', 'cosine');
      await settled(page);
      await page.check('#learn-tau');
      await settled(page);
      assert.match(page.url(), /tau=learned/);
      await page.click('#play');
      await page.waitForFunction(() => Number(document.getElementById('step-count').dataset.steps) >= 500, null, { timeout: 120000 });
      await settled(page);
      const readout = await page.textContent('#accuracy');
      assert.match(readout, /; learnt τ = [\d.]+ at step 500$/, readout);
      const tau = Number(await page.$eval('#accuracy', (e) => e.dataset.tau));
      assert.ok(tau > 0 && tau < 0.5, `cosine learns a τ below 1: ${tau}`);
      assert.deepEqual(h.log.pageErrors, []);
    } finally { await context.close(); }
  });

  test('compare on the paraphrase rule: content-blind location stays far below scaled-dot', async () => {
    const context = await h.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = h.watch(await context.newPage());
      await page.goto(h.server.url + 'lab.html#rule=paraphrase&cmp=scaled-dot,location&steps=100');
      await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
      await settled(page, 60000);
      assert.match(await page.textContent('#compare-task'), /the same word in a paraphrase/);
      await page.click('#compare-run');
      await page.waitForSelector('#compare-status[data-state="done"]', { timeout: 120000 });
      const rows = await page.$$eval('#compare-table tbody tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.score, Number(tr.dataset.accuracy)])));
      assert.deepEqual(Object.keys(rows).sort(), ['location', 'scaled-dot']);
      // Location scores key positions only, and a paraphrase moves the words.
      assert.ok(rows['scaled-dot'] > 0.8 && rows.location < 0.6, JSON.stringify(rows));
      assert.equal(await page.locator('#figure-lab-compare g.lines path.series').count(), 2);
      assert.deepEqual(h.log.pageErrors, []);
    } finally { await context.close(); }
  });
});
