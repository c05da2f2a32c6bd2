// The attention lab's output comparison (web/pages/lab/lab.html, part 2, "What each head outputs") in Chromium:
// a link with out=none,value,scaled ticks the three outputs; Compare trains one head per function and
// output (the value and symmetric outputs only to copy the target word's vector) and the table gives
// each its attention accuracy and output accuracy, equal to what node's build gives for the same seed;
// the plot keeps a function's colour and dashes its outputs; the text reads the outputs from the rows;
// the CSV has the output columns; the URL keeps the choice. Screenshots at 1440 px and on a 390 px
// phone. Training runs in the lab's worker: after an action the test waits for the page to settle.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setup, outDir, settled, parseCSV, root } from '../../scripts/browser-harness.mjs';

let h;
before(async () => { h = await setup(); });
after(async () => { if (h) await h.close(); });

const HASH = '#cmp=scaled-dot,idw&out=none,value,scaled&steps=100&seed=2';

async function openLab(context, hash) {
  const page = h.watch(await context.newPage());
  await page.goto(h.server.url + 'lab.html' + hash);
  await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
  await settled(page, 60000);
  return page;
}
const tableRows = (page) => page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => ({
  score: tr.dataset.score, output: tr.dataset.output, accuracy: Number(tr.dataset.accuracy), stepsTo90: tr.dataset.stepsTo90,
  outputAccuracy: tr.dataset.outputAccuracy === undefined ? null : Number(tr.dataset.outputAccuracy),
  cells: [...tr.children].map((c) => c.textContent.trim()),
})));

describe('lab, output comparison', () => {
  test('attention only, + value output, + symmetric output: table = node, dashed curves, reading, CSV, URL', async () => {
    const context = await h.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    try {
      const page = await openLab(context, HASH);
      const ticked = await page.$$eval('#compare-outputs input:checked', (bs) => bs.map((b) => b.value));
      assert.deepEqual(ticked, ['none', 'value', 'scaled'], 'the link ticks the outputs');
      assert.match(await page.textContent('#compare-run'), /^Compare 6 runs \(2 functions × 3 outputs\)$/);
      assert.match(await page.textContent('#compare-task'), /the output must copy/);
      await page.click('#compare-run');
      await page.waitForSelector('#compare-status[data-state="done"]', { timeout: 180000 });
      await settled(page);
      const shown = await tableRows(page);
      assert.equal(shown.length, 6);
      assert.deepEqual(shown.map((r) => r.score).sort(), ['idw', 'idw + symmetric', 'idw + value', 'scaled-dot', 'scaled-dot + symmetric', 'scaled-dot + value']);
      const heads = await page.$$eval('#compare-table thead button', (bs) => bs.map((b) => b.textContent));
      assert.equal(heads[2], 'Output accuracy');
      for (const r of shown) {
        if (r.output === 'none') { assert.equal(r.outputAccuracy, null); assert.equal(r.cells[2], '—'); }
        else { assert.ok(r.outputAccuracy >= 0 && r.outputAccuracy <= 1); assert.equal(r.cells[2], `${(100 * r.outputAccuracy).toFixed(1)}%`); }
      }
      // node's build, the same seed: the same numbers.
      const { Comparison, summaryRows } = await import(pathToFileURL(join(root, 'lab/compare.js')).href);
      const { LabSession } = await import(pathToFileURL(join(root, 'lab/session.js')).href);
      const session = new LabSession(h.scope, JSON.parse(readFileSync(join(root, 'lab/corpus.json'), 'utf8')));
      const task = session.task('previous');
      const c = new Comparison(h.scope, { train: task.train.data, heldOut: task.heldOut.data, trainer: session.trainerOptions({ learningRate: 0.01, seed: 2 }),
        scores: ['scaled-dot', 'idw'], outputs: ['none', 'value', 'scaled'], steps: 100 });
      while (!c.done) c.advance(1e9);
      const node = summaryRows(c.results);
      for (const r of node) {
        const s = shown.find((x) => x.score === r.score);
        assert.equal(s.accuracy, r.accuracy, `${r.score}: page ${s.accuracy}, node ${r.accuracy}`);
        assert.equal(s.outputAccuracy, r.outputAccuracy, `${r.score} output accuracy`);
        assert.equal(s.stepsTo90, r.stepsTo90 === null ? '' : String(r.stepsTo90));
      }
      // One curve per run; a function's outputs share its colour and differ in dashes.
      const series = await page.$$eval('#figure-lab-compare g.lines path.series', (ps) => ps.map((p) => ({ score: p.dataset.score, stroke: getComputedStyle(p).stroke, dash: getComputedStyle(p).strokeDasharray })));
      assert.equal(series.length, 6);
      const of = (name) => series.find((x) => x.score === name);
      assert.equal(of('scaled-dot + value').stroke, of('scaled-dot').stroke);
      assert.equal(of('scaled-dot + symmetric').stroke, of('scaled-dot').stroke);
      assert.equal(new Set(['scaled-dot', 'scaled-dot + value', 'scaled-dot + symmetric'].map((n) => of(n).dash)).size, 3, 'three dash patterns');
      // The output accuracy is a metric of the plot now.
      await page.selectOption('#figure-lab-compare select.metric', 'outputAccuracy');
      await settled(page);
      const outLines = await page.$$eval('#figure-lab-compare g.lines path.series', (ps) => ps.filter((p) => p.getAttribute('d')).map((p) => p.dataset.score));
      assert.deepEqual(outLines.sort(), ['idw + symmetric', 'idw + value', 'scaled-dot + symmetric', 'scaled-dot + value'], 'attention-only runs have no output line');
      // The text reads the outputs from these numbers.
      const reading = await page.$$eval('#compare-reading p', (ps) => ps.map((p) => p.textContent));
      const sym = reading.filter((t) => t.startsWith('The symmetric output?'));
      assert.equal(sym.length, 1, reading.join('\n'));
      const sv = shown.find((r) => r.score === 'scaled-dot + value'), ss = shown.find((r) => r.score === 'scaled-dot + symmetric');
      const pc = (x) => `${(100 * x).toFixed(1)}%`;
      assert.ok(sym[0].includes(`with scaled-dot ${pc(sv.outputAccuracy)} (${pc(sv.accuracy)}) against ${pc(ss.outputAccuracy)} (${pc(ss.accuracy)})`), sym[0]);
      assert.match(sym[0], /On this run the symmetric output's output accuracy came out/);
      assert.match(reading.at(-1), /not a published design/);
      await page.locator('#compare').screenshot({ path: join(outDir, 'lab-outputs-1440.png') });
      await page.locator('#figure-lab-compare').screenshot({ path: join(outDir, 'lab-outputs-plot-1440.png') });
      // The CSV has the output columns.
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#figure-lab-compare button.export-csv')]);
      const rows = parseCSV(readFileSync(await dl.path(), 'utf8'));
      assert.deepEqual(rows[0].slice(-2), ['output', 'held_out_output_accuracy']);
      assert.equal(rows.length, 1 + 6 * 101);
      const last = rows.filter((r) => r[1] === 'idw + symmetric').at(-1);
      assert.equal(last[8], 'scaled');
      assert.ok(Math.abs(Number(last[9]) - shown.find((r) => r.score === 'idw + symmetric').outputAccuracy) < 1e-8, `CSV ${last[9]}`);
      // Unticking an output is written to the URL.
      await page.click('#compare-outputs input[value=value]');
      assert.match(await page.evaluate(() => location.hash), /out=none%2Cscaled/);
      assert.deepEqual(h.log.pageErrors, []);
    } finally { await context.close(); }
  });

  test('on a 390 px phone: the output choice and the table fit (no sideways scroll of the page)', async () => {
    const context = await h.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    try {
      const page = await openLab(context, '#cmp=scaled-dot&out=none,value,scaled&steps=100');
      await page.click('#compare-run');
      await page.waitForSelector('#compare-status[data-state="done"]', { timeout: 180000 });
      await settled(page);
      assert.equal((await tableRows(page)).length, 3);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
      await page.locator('#compare').screenshot({ path: join(outDir, 'lab-outputs-390.png') });
      await page.locator('#figure-lab-compare').screenshot({ path: join(outDir, 'lab-outputs-plot-390.png') });
      await page.locator('#compare-outputs').screenshot({ path: join(outDir, 'lab-outputs-choice-390.png') });
      assert.deepEqual(h.log.pageErrors, []);
    } finally { await context.close(); }
  });
});
