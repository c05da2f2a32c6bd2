// The transformer page (web/pages/transformer/): it trains in slices in its worker, and what it prints is the
// run's numbers — the same run made in node by the page's own session module (the same wasm build, so the
// same bits) gives the readout and the reading; the slider shows saved steps; a knocked-out head changes the
// predictions; the encoder–decoder task shows its cross-attention; the keyboard drives it all.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setup, outDir, settled, root } from '../../scripts/browser-harness.mjs';

let h, session, reading;
before(async () => {
  h = await setup();
  const { TransformerSession } = await import(pathToFileURL(join(root, 'web/pages/transformer/session.js')).href);
  reading = await import(pathToFileURL(join(root, 'web/pages/transformer/reading.js')).href);
  session = new TransformerSession(h.scope);
});
after(async () => { if (session) session.dispose(); if (h) await h.close(); });

const stepsShown = (page) => page.$eval('#step-count', (e) => Number(e.dataset.steps));
async function stepTo(page, steps) {
  for (let now = await stepsShown(page); now < steps; now = await stepsShown(page)) {
    await page.click('#step');
    await page.waitForFunction((n) => Number(document.querySelector('#step-count').dataset.steps) >= n, now + 50, { timeout: 60000 });
  }
  await settled(page, 60000);
}

test('induction: the readout and the reading are the run in node; the slider, a knock-out and the keyboard', async () => {
  const info = session.setup({ task: 'induction', seed: 1 });
  session.train({ budgetMs: 1e9, until: 100 });
  const p = session.progress();
  const last = p.evals[p.evals.length - 1];
  assert.equal(last.step, 100);
  const expected = reading.readTraining(info, p.evals).text;

  const context = await h.newContext({ viewport: { width: 1366, height: 768 } });
  try {
    const page = h.watch(await context.newPage());
    await page.goto(`${h.server.url}transformer.html#task=induction&seed=1`);
    await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
    await settled(page, 60000);
    await stepTo(page, 100);
    assert.equal(await stepsShown(page), 100, 'the +50 button stops at its step');
    const readout = await page.$eval('#readout', (e) => e.textContent);
    assert.ok(readout.startsWith(`held-out loss ${last.loss.toFixed(2)}, accuracy ${(100 * last.accuracy).toFixed(0)}%`), readout);
    assert.equal(await page.$eval('#reading', (e) => e.textContent), expected);
    // A screen reader hears each +50 once (the readout and the reading, which change every evaluation, are not live).
    assert.equal(await page.$eval('#announce', (e) => e.textContent), `Step 100: held-out loss ${last.loss.toFixed(2)}, accuracy ${(100 * last.accuracy).toFixed(0)}%.`);
    assert.equal(await page.$eval('#reading', (e) => e.getAttribute('aria-live')), null);
    // The slider, by keyboard (as a reader without a mouse moves it): one step back is step 50, a saved
    // step; the grid says so.
    await page.focus('#view-step');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.querySelector('#view-step').dataset.step === '50', null, { timeout: 30000 });
    await settled(page, 30000);
    assert.match(await page.$eval('#figure-grid .fig-title, #figure-grid h3, #figure-grid [id$="-title"]', (e) => e.textContent), /at step 50/);
    // Back to the newest (End), then knock out the head shown: the predictions are recomputed with it.
    await page.focus('#view-step');
    await page.keyboard.press('End');
    await settled(page, 30000);
    // The keyboard: the grid's arrow keys pick head 0.1, the surgery controls follow it.
    await page.focus('#figure-grid svg');
    await page.keyboard.press('ArrowRight');
    await settled(page, 30000);
    assert.equal(await page.$eval('#surgery-head', (e) => e.textContent), '0.1');
    await page.focus('#knock');
    await page.keyboard.press('Space');
    await settled(page, 30000);
    assert.match(await page.$eval('#surgery-info', (e) => e.textContent), /head 0\.1 knocked out/);
    assert.match(await page.$eval('#prediction', (e) => e.textContent), /With the changes: \d+ of \d+ right\./);
    // The run in node with the same head knocked out gives the same count.
    const v = session.view({ ablate: ['0.1'] });
    assert.match(await page.$eval('#prediction', (e) => e.textContent), new RegExp(`With the changes: ${v.surgery.right} of ${v.counted} right`));
    // Save: the file holds the model and its tokens; the note beside the button says how a lecture note
    // shows it, with a query the element reads with those tokens.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
    assert.equal(download.suggestedFilename(), 'attnscope-induction-step100.safetensors');
    const bytes = readFileSync(await download.path());
    await page.waitForFunction(() => !document.querySelector('#save-note').hidden);
    const note = await page.$eval('#save-note', (e) => e.textContent);
    const query = /query="([^"]*)"/.exec(note)[1];
    assert.match(note, /^Saved as attnscope-induction-step100\.safetensors\. To show it in lecture notes, .*<attn-scope model="transformer" model-src="attnscope-induction-step100\.safetensors" query="/);
    const saved = await h.scope.loadModel({ model: bytes });
    try {
      assert.equal(saved.tokens.length, 64);
      const { decoderViews } = await import(pathToFileURL(join(root, 'web/shared/compute/saved-model.js')).href);
      const shown = decoderViews(h.scope, saved, { text: query, head: '1.0' });
      assert.deepEqual([...shown.ids], [...session.run.task.probe.ids], 'the note\'s query is the probe, read back with the file\'s tokens');
    } finally { saved.dispose(); }
    await page.screenshot({ path: join(outDir, 'transformer-induction-1366-light.png'), fullPage: true });
    // Train from the keyboard too: Enter on +50.
    await page.focus('#step');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => Number(document.querySelector('#step-count').dataset.steps) >= 150, null, { timeout: 60000 });
  } finally { await context.close(); }
});

test('reversal: the encoder–decoder shows cross-attention heads and the model\'s output on its example', async () => {
  const context = await h.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const page = h.watch(await context.newPage());
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${h.server.url}transformer.html#task=reversal&seed=1`);
    await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
    await settled(page, 60000);
    assert.equal(await page.$eval('#stack-row', (e) => e.hidden), false);
    const labels = await page.$$eval('#head-scores select', (s) => s.map((x) => `${x.dataset.head}=${x.value}`));
    assert.ok(labels.some((l) => l.startsWith('cross.')), labels.join(' '));
    await stepTo(page, 50);
    assert.match(await page.$eval('#prediction', (e) => e.textContent), /The model's output for it at step 50: ".*" \(\d+ of \d+ right\)/);
    assert.match(await page.$eval('#figure-tf-head [id$="-title"]', (e) => e.textContent), /^Head cross\.0\.0 \(/);
    await page.screenshot({ path: join(outDir, 'transformer-reversal-390-dark.png'), fullPage: true });
  } finally { await context.close(); }
});

test('the comparison: its table and its conclusion are the runs made in node', async () => {
  session.compareStart({ task: 'reversal', scores: ['scaled-dot', 'cosine'], steps: 500, seed: 1 });
  let r;
  do r = session.compareAdvance(1e9); while (!r.finished);
  const info = session.setup({ task: 'reversal', seed: 1 });
  const expected = reading.readComparison(r.series, info.target, { learned: false });
  const context = await h.newContext({ viewport: { width: 1366, height: 768 } });
  try {
    const page = h.watch(await context.newPage());
    await page.goto(`${h.server.url}transformer.html#task=reversal&seed=1`);
    await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
    await settled(page, 60000);
    await page.$$eval('#compare-scores input', (boxes) => boxes.forEach((b) => { b.checked = b.value === 'scaled-dot' || b.value === 'cosine'; }));
    await page.dispatchEvent('#compare-scores input', 'change');
    await page.selectOption('#compare-steps', '500');
    assert.equal(await page.$eval('#compare-run', (b) => b.textContent), 'Compare 2 scoring functions');
    await page.click('#compare-run');
    await page.waitForFunction(() => document.querySelector('#compare-status').dataset.state === 'done', null, { timeout: 120000 });
    await settled(page, 30000);
    assert.equal(await page.$eval('#notice-text', (e) => e.textContent), '');
    const rows = await page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.deepEqual(rows, expected.rows.map((x) => [x.score, x.final.loss.toFixed(3), `${(100 * x.final.accuracy).toFixed(1)}%`, x.reached === null ? 'not met' : String(x.reached)]));
    assert.equal(await page.$eval('#compare-reading', (e) => e.textContent), expected.text);
    assert.match(expected.text, /Lowest held-out loss: /);
  } finally { await context.close(); }
});
