// The attention lab (web/pages/lab/lab.html) in Chromium: training the previous-word rule raises held-out
// accuracy far above chance within 300 steps (a count, never a time); pause stops the steps, "+5
// steps" adds exactly five, the slider redraws a saved step (step 0 = the untrained head); the page
// works offline once its service worker has saved it; screenshots at 1440×900 and on a 390×844 phone.
// Part 2: a comparison of a few functions fills the table and the plot, the same seed gives the same
// table (and the node build's numbers), it can be sorted and cancelled; the plots' PNG/SVG/CSV
// downloads are well formed; the settings round trip through the URL. Training runs in the lab's
// worker: after an action the tests wait for the page to settle (body.computing off, as on the demo).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setup, outDir, settled, parseCSV, root } from '../../scripts/browser-harness.mjs';

let h;
before(async () => { h = await setup(); });
after(async () => { if (h) await h.close(); });

async function openLab(context, hash = '') {
  const page = h.watch(await context.newPage());
  await page.goto(h.server.url + 'lab.html' + hash);
  await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
  await settled(page, 60000);
  return page;
}
const steps = (p) => p.$eval('#step-count', (e) => Number(e.dataset.steps));
const accuracy = (p) => p.$eval('#accuracy', (e) => ({ accuracy: Number(e.dataset.accuracy), chance: Number(e.dataset.chance) }));
// The fill of every cell of a heatmap: what the reader sees.
const fills = (p, slot) => p.$$eval(`#${slot} svg.heatmap g.cells rect`, (rs) => rs.map((r) => r.getAttribute('fill') || getComputedStyle(r).fill));
async function setSlider(p, value) {
  await p.$eval('#view-step', (e, v) => { e.value = String(v); e.dispatchEvent(new Event('input', { bubbles: true })); }, value);
  await settled(p);
}
/** Clicks, then waits until the worker has answered and the page has drawn it. */
async function act(p, selector) {
  await p.click(selector);
  await settled(p);
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

      // Pause from inside the page as soon as 300 steps are done (training is fast: a click from here
      // could arrive after the run's last step). A MutationObserver on the step count reacts to the
      // very update that reaches 300; polling once an animation frame could miss 200 steps on a busy
      // machine ("paused at 500").
      const pausing = page.evaluate(() => new Promise((resolve, reject) => {
        const count = document.getElementById('step-count');
        const timer = setTimeout(() => { observer.disconnect(); reject(new Error(`never reached 300 steps (at ${count.dataset.steps})`)); }, 120000);
        const observer = new MutationObserver(() => {
          if (Number(count.dataset.steps) < 300) return;
          observer.disconnect();
          clearTimeout(timer);
          document.getElementById('play').click();
          resolve();
        });
        observer.observe(count, { attributes: true, attributeFilter: ['data-steps'] });
      }));
      await page.click('#play');
      await pausing;
      assert.equal(await page.textContent('#play'), 'Train');
      await settled(page);   // the slice the worker was training when Pause was pressed lands
      const paused = await steps(page);
      assert.ok(paused >= 300 && paused < 500 && paused % 5 === 0, `paused at ${paused}`);
      const trained = await accuracy(page);
      assert.ok(trained.accuracy > 0.7 && trained.accuracy > 3 * trained.chance,
        `after ${paused} steps: held-out accuracy ${trained.accuracy} (chance ${trained.chance})`);
      // Paused: nothing moves however many frames pass.
      await page.evaluate(() => new Promise((r) => { let n = 0; const f = () => (++n < 20 ? requestAnimationFrame(f) : r()); requestAnimationFrame(f); }));
      assert.equal(await steps(page), paused, 'no steps while paused');
      // +5 steps: exactly five more.
      await act(page, '#step');
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
      await settled(page);
      assert.equal(await page.locator('#own-after svg.heatmap g.cells rect').count(), 49, 'seven words: 7 × 7 cells');
      await setSlider(page, (paused + 5) / 5);
      await page.screenshot({ path: join(outDir, 'lab-1440.png'), fullPage: true });
      // Start over: a new run from the seed, its step-0 picture the same as the first run's.
      await act(page, '#reset');
      assert.equal(await steps(page), 0);
      assert.equal(await page.$eval('#view-step', (e) => e.max), '0');
      assert.match(await page.textContent('#figure-lab-held-after-title'), /At step 0$/);
      assert.deepEqual(await fills(page, 'held-after'), before0, 'the same seed: the same untrained head');
      assert.deepEqual(h.log.pageErrors, []);
      assert.deepEqual(h.log.outside, [], 'nothing requested outside the page origin');
    } finally { await context.close(); }
  });

  test('on a 390×844 phone: the page fits its width and trains', async () => {
    const context = await h.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    try {
      const page = await openLab(context);
      await act(page, '#step');
      await act(page, '#step');
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
      await act(page, '#step');
      assert.equal(await steps(page), 5);
      assert.ok((await fills(page, 'held-after')).length > 4);
    } finally { await context.close(); }
  });
  test('compare: a few functions fill the table and the plot; same seed → same table (and node\'s numbers); sort, cancel, pause meanwhile', async () => {
    const context = await h.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = await openLab(context, '#cmp=dot,scaled-dot,idw&steps=100&seed=3');
      assert.deepEqual(await page.$$eval('#compare-scores input:checked', (xs) => xs.map((x) => x.value)), ['dot', 'scaled-dot', 'idw']);
      assert.equal(await page.$eval('#compare-steps', (e) => e.value), '100');
      const runCompare = async () => {
        await page.click('#compare-run');
        await page.waitForSelector('#compare-status[data-state="done"]', { timeout: 120000 });
        return page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => ({
          score: tr.dataset.score, accuracy: Number(tr.dataset.accuracy), stepsTo90: tr.dataset.stepsTo90,
          cells: [...tr.children].map((c) => c.textContent.trim()),
        })));
      };
      const first = await runCompare();
      assert.equal(first.length, 3);
      assert.deepEqual(first.map((r) => r.score).sort(), ['dot', 'idw', 'scaled-dot']);
      for (const r of first) {
        assert.ok(r.accuracy >= 0 && r.accuracy <= 1);
        assert.match(r.cells[2], r.stepsTo90 === '' ? /^not reached in 100 steps$/ : new RegExp(`^step ${r.stepsTo90}$`));
        assert.match(r.cells[1], /^\d+\.\d%$/);
      }
      // Ordered by steps to 90% (not reached last).
      const order = first.map((r) => (r.stepsTo90 === '' ? Infinity : Number(r.stepsTo90)));
      assert.deepEqual(order, [...order].sort((a, b) => a - b));
      // One curve per function on one plot, each its own colour, and named in the picture's key.
      const series = await page.$$eval('#figure-lab-compare g.lines path.series', (ps) => ps.map((p) => ({ score: p.dataset.score, stroke: getComputedStyle(p).stroke, d: p.getAttribute('d') })));
      assert.deepEqual(series.map((x) => x.score), ['dot', 'scaled-dot', 'idw']);
      assert.equal(new Set(series.map((x) => x.stroke)).size, 3, `colours ${series.map((x) => x.stroke)}`);
      for (const x of series) assert.equal((x.d.match(/L/g) || []).length, 10, 'held-out loss at steps 0, 10, …, 100');
      assert.deepEqual(await page.$$eval('#figure-lab-compare g.key text', (ts) => ts.map((t) => t.textContent)), ['dot', 'scaled-dot', 'idw']);
      // The text reads these numbers.
      const reading = await page.$$eval('#compare-reading p', (ps) => ps.map((p) => p.textContent));
      assert.ok(reading.length >= 3, reading.join('\n'));
      const best = [...first].sort((a, b) => b.accuracy - a.accuracy)[0];
      assert.ok(reading[1].includes(`${(100 * best.accuracy).toFixed(1)}% (${best.score})`), reading[1]);
      assert.match(reading.join(' '), /√d or cosine\? On this run: Dividing the dot product by √d \(√16 = 4 here\), scaled-dot (faster|slower|about as fast|reached|did not|ended)[^.]* dot/);
      assert.match(reading.at(-1), /One seed \(3\)/);
      // The node build gives the same numbers for the same seed.
      const { Comparison, summaryRows } = await import(pathToFileURL(join(root, 'lab/compare.js')).href);
      const { LabSession } = await import(pathToFileURL(join(root, 'lab/session.js')).href);
      const session = new LabSession(h.scope, JSON.parse(readFileSync(join(root, 'lab/corpus.json'), 'utf8')));
      const task = session.task('previous');
      const c = new Comparison(h.scope, { train: task.train.data, heldOut: task.heldOut.data, trainer: session.trainerOptions({ learningRate: 0.01, seed: 3 }), scores: ['dot', 'scaled-dot', 'idw'], steps: 100 });
      while (!c.done) c.advance(1e9);
      for (const r of summaryRows(c.results)) {
        const shown = first.find((x) => x.score === r.score);
        assert.equal(shown.accuracy, r.accuracy, `${r.score}: page ${shown.accuracy}, node ${r.accuracy}`);
        assert.equal(shown.stepsTo90, r.stepsTo90 === null ? '' : String(r.stepsTo90));
      }
      // Again: the same table.
      assert.deepEqual(await runCompare(), first);
      // Sort by accuracy, then reversed.
      await page.click('#compare-table thead button[data-key="accuracy"]');
      const byAcc = await page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => Number(tr.dataset.accuracy)));
      assert.deepEqual(byAcc, [...byAcc].sort((a, b) => b - a));
      assert.equal(await page.$eval('#compare-table thead th[aria-sort]', (th) => th.getAttribute('aria-sort')), 'descending');
      await page.click('#compare-table thead button[data-key="accuracy"]');
      assert.equal(await page.$eval('#compare-table thead th[aria-sort]', (th) => th.getAttribute('aria-sort')), 'ascending');
      await page.locator('#compare').screenshot({ path: join(outDir, 'lab-compare-1440.png') });

      // Cancel a long one part-way: the finished functions stay, the rest are not trained.
      await page.click('#compare-all');
      await page.selectOption('#compare-steps', '500');
      await page.click('#compare-run');
      await page.waitForFunction(() => Number(document.getElementById('compare-progress').value) >= 600, null, { timeout: 120000 });
      // Part 1 trains in the same worker meanwhile, and pauses.
      await page.click('#play');
      await page.waitForFunction(() => Number(document.getElementById('step-count').dataset.steps) >= 20, null, { timeout: 60000 });
      await page.click('#play');
      await page.click('#compare-cancel');
      await settled(page);
      const paused = await steps(page);
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
      assert.equal(await steps(page), paused, 'no steps while paused');
      assert.equal(await page.$eval('#compare-status', (e) => e.dataset.state), 'cancelled');
      assert.ok(await page.$eval('#compare-cancel', (e) => e.disabled));
      const kept = await page.locator('#compare-table tbody tr').count();
      assert.ok(kept >= 1 && kept < 10, `${kept} rows after a cancel`);
      assert.match(await page.textContent('#compare-status'), new RegExp(`Cancelled: ${kept} of 10`));
      assert.equal(await page.locator('#figure-lab-compare g.lines path.series').count(), kept);
      assert.deepEqual(h.log.pageErrors, []);
    } finally { await context.close(); }
  });

  test('export: PNG, SVG and CSV of the training curves and the comparison, PNG of a heatmap', async () => {
    const context = await h.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = await openLab(context, '#cmp=cosine,neg-euclidean&steps=100&rule=next');
      await act(page, '#step');
      await act(page, '#step');
      const save = async (selector) => {
        const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
        const bytes = readFileSync(await dl.path());
        return { name: dl.suggestedFilename(), bytes, text: bytes.toString('utf8') };
      };
      const isPNG = (b) => b.length > 1000 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      const png = await save('#figure-loss-curve button.export-png');
      assert.ok(isPNG(png.bytes), `${png.name}: a PNG`);
      assert.match(png.name, /^attnscope-lab-curves-next-scaled-dot\.png$/);
      const svg = await save('#figure-loss-curve button.export-svg');
      assert.match(svg.text, /^<\?xml[^]*<svg[^]*<\/svg>$/);
      assert.ok(svg.text.includes('<path') && svg.text.includes('>training step</text>'));
      const csv = parseCSV((await save('#figure-loss-curve button.export-csv')).text);
      assert.deepEqual(csv[0], ['rule', 'score', 'learning_rate', 'seed', 'step', 'batch_loss', 'held_out_loss', 'held_out_accuracy']);
      assert.equal(csv.length, 1 + 11, 'steps 0 to 10');
      assert.deepEqual(csv[1].slice(0, 5), ['next', 'scaled-dot', '0.01', '1', '0']);
      for (const r of csv.slice(2)) assert.ok(Number(r[5]) > 0, `batch loss ${r[5]}`);
      assert.ok(Number(csv[1][7]) >= 0 && Number(csv[1][7]) <= 1);
      assert.ok(isPNG((await save('#figure-lab-held-after button.export-png')).bytes));

      // The comparison: its buttons wait for a result.
      assert.ok(await page.$eval('#figure-lab-compare button.export-png', (b) => b.disabled));
      await page.click('#compare-run');
      await page.waitForSelector('#compare-status[data-state="done"]', { timeout: 120000 });
      assert.ok(isPNG((await save('#figure-lab-compare button.export-png')).bytes));
      const csvg = (await save('#figure-lab-compare button.export-svg')).text;
      assert.match(csvg, /^<\?xml[^]*<svg[^]*<\/svg>$/);
      for (const name of ['cosine', 'neg-euclidean']) assert.ok(csvg.includes(`>${name}</text>`), `the exported key names ${name}`);
      const strokes = [...csvg.matchAll(/<path[^>]*data-score="([^"]+)"[^>]*stroke="([^"]+)"/g)].map((m) => m[2]);
      assert.equal(new Set(strokes).size, 2, `the exported curves keep their colours: ${strokes}`);
      const c = await save('#figure-lab-compare button.export-csv');
      assert.match(c.name, /^attnscope-lab-compare-next\.csv$/);
      const rows = parseCSV(c.text);
      assert.equal(rows.length, 1 + 2 * 101);
      assert.deepEqual([...new Set(rows.slice(1).map((r) => r[1]))], ['cosine', 'neg-euclidean']);
      assert.equal(rows.slice(1).filter((r) => r[6] !== '').length, 2 * 11, 'held-out numbers every 10 steps');
      const table = await page.$$eval('#compare-table tbody tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.score, Number(tr.dataset.accuracy)])));
      for (const name of ['cosine', 'neg-euclidean']) {
        const last = rows.filter((r) => r[1] === name && r[4] === '100')[0];
        assert.ok(Math.abs(Number(last[7]) - table[name]) < 1e-8, `${name}: the CSV's last accuracy ${last[7]} is the table's ${table[name]}`);
      }
      assert.deepEqual(h.log.pageErrors, []);
    } finally { await context.close(); }
  });

  test('URL: a link sets the lab, changes write the hash, a reload keeps them, a bad link says what it ignored', async () => {
    const context = await h.newContext();
    try {
      const page = await openLab(context, '#rule=first&score=idw&lr=0.03&seed=7&cmp=dot,cosine&steps=200');
      const read = () => page.evaluate(() => ({
        rule: document.getElementById('rule').value, score: document.getElementById('score').value, lr: document.getElementById('lr').value,
        seed: document.getElementById('seed').value, steps: document.getElementById('compare-steps').value,
        cmp: [...document.querySelectorAll('#compare-scores input:checked')].map((x) => x.value),
      }));
      assert.deepEqual(await read(), { rule: 'first', score: 'idw', lr: '0.03', seed: '7', steps: '200', cmp: ['dot', 'cosine'] });
      assert.match(await page.textContent('#compare-task'), /learning rate 0\.03 from seed 7/);
      assert.ok(await page.$eval('#notice', (e) => e.hidden));
      await page.selectOption('#score', 'cosine');
      await settled(page);
      await page.check('#compare-scores input[value="idw"]');
      await page.fill('#seed', '9');
      await page.press('#seed', 'Enter');
      await page.locator('#seed').blur();
      await settled(page);
      const hash = await page.evaluate(() => location.hash);
      const params = new URLSearchParams(hash.slice(1));
      assert.equal(params.get('score'), 'cosine');
      assert.equal(params.get('seed'), '9');
      assert.equal(params.get('cmp'), 'dot,cosine,idw');
      await page.reload();
      await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
      await settled(page);
      assert.deepEqual(await read(), { rule: 'first', score: 'cosine', lr: '0.03', seed: '9', steps: '200', cmp: ['dot', 'cosine', 'idw'] });
      // A link followed on the page starts a new run with its settings.
      await act(page, '#step');
      await page.evaluate(() => { location.hash = '#rule=next&score=dot'; });
      await settled(page);
      assert.equal((await read()).rule, 'next');
      assert.equal(await steps(page), 0, 'a new run');
      // A mangled link: defaults, and a notice naming what was ignored.
      // (Opened in a new page: a same-document navigation's hashchange rewrites the hash with the
      // settings it kept, so a reload after it would load the cleaned link.)
      const bad = await openLab(context, '#rule=sideways&lr=5&colour=red');
      assert.equal(await bad.$eval('#rule', (e) => e.value), 'previous');
      const text = await bad.textContent('#notice-text');
      assert.match(text, /rule “sideways” is not one of/);
      assert.match(text, /lr “5”/);
      assert.match(text, /colour “red” is not a setting of the lab/);
      assert.deepEqual(h.log.pageErrors, []);
    } finally { await context.close(); }
  });
});
