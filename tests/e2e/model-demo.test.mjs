// The demo's "trained model" choice (web/shared/compute/use-lite.js, the registry's model figures) in headless
// Chromium, one browser for the file. Expected numbers come from the same module in node
// (dist/attnscope.mjs: scope.loadModel(), model.encode()). Screenshots go to test-output/.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, outDir, autoSettle, settled } from '../../scripts/browser-harness.mjs';

const SENTENCE = 'The animal didn\'t cross the street because it was too tired.';
const SECOND = 'The tired dog stayed on the pavement.';
let h, context, page, model;

const shot = (name, p = page) => p.screenshot({ path: join(outDir, `${name}.png`), fullPage: true });
async function downloadJSON(selector, p = page) {
  await p.locator(selector).scrollIntoViewIfNeeded();
  const [dl] = await Promise.all([p.waitForEvent('download'), p.click(selector)]);
  return JSON.parse(readFileSync(await dl.path(), 'utf8'));
}
/** Row i of head (l, h) of a [layers, heads, n, n] stack. */
const row = (att, n, heads, l, hd, i) => Array.from(att.subarray(((l * heads + hd) * n + i) * n, ((l * heads + hd) * n + i + 1) * n));
function close(actual, expected, tol, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let j = 0; j < expected.length; j++) assert.ok(Math.abs(actual[j] - expected[j]) <= tol, `${what}[${j}]: ${actual[j]} vs ${expected[j]}`);
}
const cosine = (a, b) => { let d = 0, x = 0, y = 0; for (let i = 0; i < a.length; i++) { d += a[i] * b[i]; x += a[i] ** 2; y += b[i] ** 2; } return d / Math.sqrt(x * y); };
const measure = async (key) => Number(await page.getAttribute(`#figure-model-effect dd[data-measure="${key}"]`, 'data-value'));
const hashParams = async () => new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
/** The hash's `key` once it is `want` (the page writes its hash 150 ms after the last change), else what it is after 3 s. */
async function hashParam(key, want) {
  await page.waitForFunction(([k, w]) => new URLSearchParams(location.hash.slice(1)).get(k) === w, [key, want], { timeout: 3000 }).catch(() => {});
  return (await hashParams()).get(key);
}

describe('the demo with the trained model', () => {
  before(async () => {
    h = await setup();
    model = await h.scope.loadModel();
    context = await h.newContext({ viewport: { width: 1366, height: 768 } });
    page = autoSettle(await h.open(context));
  });
  after(async () => {
    if (model) model.dispose();
    if (h) await h.close();
  });

  test('the model file is fetched only when the model is chosen', async () => {
    assert.ok(!h.log.requests.some((u) => u.endsWith('use-lite.bin')), 'no model download before it is chosen');
    // While the file loads, the loading is shown where the model will appear, and the header says so (#34 item 9).
    await page.evaluate(() => {
      window.modelLoadingSeen = [];
      const box = document.getElementById('model-loading');
      new MutationObserver(() => {
        if (!box.hidden) window.modelLoadingSeen.push({ text: box.textContent.trim(), header: document.getElementById('load-text').textContent,
          inViews: !!box.closest('#model-views'), slotsHidden: document.getElementById('fig-model-heads').hidden });
      }).observe(box, { attributes: true, childList: true, subtree: true, characterData: true });
    });
    await page.check('#engine-model');
    await page.waitForSelector('#figure-model-heads g.panel');
    const seen = await page.evaluate(() => window.modelLoadingSeen);
    assert.ok(seen.length > 0, 'the loading was shown');
    assert.match(seen[0].text, /^Loading the trained model…/);
    assert.match(seen[0].header, /^Loading the trained model/, 'the header does not say Ready meanwhile');
    assert.ok(seen[0].inViews && seen[0].slotsHidden, 'shown in the model\'s place, its empty figures hidden');
    assert.ok(await page.isHidden('#model-loading'), 'gone once the model is drawn');
    assert.ok(await page.isHidden('#compute-progress'), 'no second bar under Share');
    assert.match(await page.textContent('#load-text'), /^Ready: /);
    assert.ok(h.log.requests.some((u) => u.endsWith('use-lite.bin')), 'the model file was downloaded');
    assert.equal(await hashParam('engine', 'model'), 'model');
    assert.ok(await page.isHidden('#views'), 'the explorer\'s plots are hidden');
  });

  test('the grid shows every layer × head, equal to model.encode() in node', async () => {
    await page.fill('#keys', '');
    await page.fill('#query', SENTENCE);
    const titles = await page.$$eval('#figure-model-heads g.panel .panel-title', (ts) => ts.map((t) => t.textContent));
    const want = [];
    for (let l = 1; l <= model.layers; l++) for (let hd = 1; hd <= model.heads; hd++) want.push(`layer ${l}, head ${hd}`);
    assert.deepEqual(titles, want);
    const r = model.encode(SENTENCE);
    const got = await downloadJSON('#figure-model-heads button.export-json');
    assert.equal(got.n, r.n);
    assert.deepEqual(got.tokens, r.tokens);
    for (const [l, hd, i] of [[0, 0, 0], [0, 3, 5], [1, 1, 2], [1, 3, r.n - 1]]) {
      close(got.attentions[`${l}.${hd}`][i], row(r.attentions, r.n, model.heads, l, hd, i), 1e-5, `head ${l}.${hd} row ${i}`);
    }
    // The tokens are the model's SentencePiece pieces, shown as text.
    const chips = await page.$$eval('#query-tokens .chip', (cs) => cs.map((c) => c.textContent));
    assert.equal(chips.length, r.n);
  });

  test('a swapped score: the swapped view differs; the original equals the unswapped model', async () => {
    await page.locator('#figure-model-heads g.panel').nth(1).click();   // layer 1, head 2
    assert.equal(await hashParam('model-head', '0.1'), '0.1');
    await page.selectOption('#figure-model-head select.model-swap-select', 'cosine');
    assert.equal(await hashParam('head-score', 'cosine'), 'cosine');
    const got = await downloadJSON('#figure-model-head button.export-json');
    assert.equal(got.head, '0.1');
    assert.equal(got.score, 'cosine');
    const base = model.encode(SENTENCE), cut = model.encode(SENTENCE, { score: { '0.1': 'cosine' } });
    for (let i = 0; i < base.n; i += 3) {
      close(got.original[i], row(base.attentions, base.n, model.heads, 0, 1, i), 1e-5, `original row ${i}`);
      close(got.swapped[i], row(cut.attentions, cut.n, model.heads, 0, 1, i), 1e-5, `swapped row ${i}`);
    }
    let diff = 0;
    for (let i = 0; i < base.n; i++) for (let j = 0; j < base.n; j++) diff = Math.max(diff, Math.abs(got.swapped[i][j] - got.original[i][j]));
    assert.ok(diff > 1e-3, `the swapped head differs from the original (max |Δ| ${diff})`);
    // The explanation quotes the numbers: the head's mean row change and the embedding's move.
    const text = await page.textContent('#figure-model-effect .model-explain');
    const dist = 1 - cosine(base.embedding, cut.embedding);
    assert.match(text, /Scoring layer 1, head 2 by cosine moves each of that head's rows by a total variation of [0-9.]+ on average/);
    // And says why cosine flattens it: its scores lie in [−1, 1] and the model's heads use τ = 1 (#34 item 1).
    assert.match(text, /Why cosine flattens the head: its scores lie in \[−1, 1\], and the model's heads use τ = 1, so no weight can be more than e\^2 ≈ 7\.39 times another in its row/);
    assert.ok(Math.abs((await measure('embedding-distance')) - dist) < 1e-5, 'the embedding distance is the node one');
    await page.selectOption('#figure-model-head select.model-swap-select', 'scaled-dot');
    assert.equal(await hashParam('head-score', null), null);
    assert.equal(await measure('embedding-distance'), 0, 'scaled-dot is the model\'s own: nothing changes');
  });

  test('knocking a head out moves the embedding; a second sentence\'s similarity before and after', async () => {
    await page.fill('#keys', SECOND);
    await page.check('#figure-model-knock input[value="0.2"]');
    assert.equal(await hashParam('knock-out', '0.2'), '0.2');
    const base = model.encode(SENTENCE), cut = model.encode(SENTENCE, { ablate: ['0.2'] });
    const dist = await measure('embedding-distance');
    assert.ok(dist > 0, `the embedding moved: ${dist}`);
    assert.ok(Math.abs(dist - (1 - cosine(base.embedding, cut.embedding))) < 1e-5);
    const before = await measure('similarity-before'), afterK = await measure('similarity-after');
    assert.ok(Math.abs(before - model.similarity(SENTENCE, SECOND)) < 1e-5, `similarity before: ${before}`);
    assert.ok(Math.abs(afterK - model.similarity(SENTENCE, SECOND, { ablate: ['0.2'] })) < 1e-5, `similarity after: ${afterK}`);
    assert.match(await page.textContent('#figure-model-effect .model-explain'), /similarity \(cosine of their embeddings\) goes from/);
    // Rollout and attention flow of the model with the surgery: the module's, as node computes them.
    const stack = { layers: model.layers, heads: model.heads, n: cut.n, residual: 0.5 };
    const flows = await downloadJSON('#figure-model-flow button.export-json');
    assert.deepEqual(flows.tokens, cut.tokens);
    const rolled = h.scope.rollout(cut.attentions, stack), flowed = h.scope.attentionFlow(cut.attentions, stack);
    for (const i of [0, 4, cut.n - 1]) {
      close(flows.rollout[i], Array.from(rolled.subarray(i * cut.n, (i + 1) * cut.n)), 1e-5, `rollout row ${i}`);
      close(flows.flow[i], Array.from(flowed.subarray(i * cut.n, (i + 1) * cut.n)), 1e-5, `flow row ${i}`);
    }
    await shot('model-demo-1366');
    await page.uncheck('#figure-model-knock input[value="0.2"]');
    await page.fill('#keys', '');
  });

  test('over 128 tokens: the page says the text was cut', async () => {
    const long = Array.from({ length: 160 }, (_, i) => `word${i}`).join(' ');
    await page.fill('#query', long);
    await page.waitForSelector('#notice:not([hidden])');
    assert.match(await page.textContent('#notice-text'), /at most 128 tokens: the text was cut/);
    assert.match(await page.textContent('#figure-model-effect .model-numbers'), /128 \(cut at 128\)/);
    await page.fill('#query', SENTENCE);
    assert.doesNotMatch(await page.textContent('#notice-text'), /128 tokens/);
  });

  test('text is rendered as text', async () => {
    const evil = '<img src=x onerror=alert(1)> <b>bold</b>';
    await page.fill('#query', evil);
    assert.equal(await page.locator('#model-views img, #model-views b').count(), 0);
    assert.deepEqual(h.log.dialogs, []);
    await page.fill('#query', SENTENCE);
  });

  test('keyboard only: the grid, the score picker and the knock-outs', async () => {
    await page.locator('#figure-model-heads g.panel').first().focus();
    await page.keyboard.press('ArrowDown');    // layer 2, head 1
    await page.keyboard.press('ArrowRight');   // layer 2, head 2
    assert.equal(await hashParam('model-head', '1.1'), '1.1');
    assert.equal(await page.evaluate(() => document.activeElement.querySelector('.panel-title')?.textContent), 'layer 2, head 2');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    assert.equal(await hashParam('model-head', '1.0'), '1.0');
    assert.match(await page.textContent('#figure-model-head .fig-title'), /layer 2, head 1/);
    await page.focus('#figure-model-head select.model-swap-select');
    await page.keyboard.press('End');           // the last scoring function of the list
    const last = await page.$eval('#figure-model-head select.model-swap-select', (s) => s.options[s.options.length - 1].value);
    assert.equal(await hashParam('head-score', last), last);
    await page.focus('#figure-model-knock input[value="1.0"]');
    await page.keyboard.press('Space');
    assert.equal(await hashParam('knock-out', '1.0'), '1.0');
    assert.ok(await measure('embedding-distance') > 0);
  });

  test('the URL brings the model view back: head, swap, knock-outs (heads 0-based, the names of the element\'s attributes)', async () => {
    const p = autoSettle(await h.open(context, `#engine=model&q=${encodeURIComponent(SENTENCE)}&model-head=1.2&head-score=neg-euclidean&knock-out=0.0,0.3`));
    await settled(p);
    await p.waitForSelector('#figure-model-heads g.panel');
    assert.ok(await p.isChecked('#engine-model'));
    assert.equal(await p.inputValue('#figure-model-head select.model-swap-select'), 'neg-euclidean');
    assert.deepEqual(await p.$$eval('#figure-model-knock input:checked', (cs) => cs.map((c) => c.value)), ['0.0', '0.3']);
    assert.match(await p.textContent('#figure-model-head .fig-title'), /layer 2, head 3/);
    const got = await downloadJSON('#figure-model-head button.export-json', p);
    const cut = model.encode(SENTENCE, { score: { '1.2': 'neg-euclidean' }, ablate: ['0.0', '0.3'] });
    close(got.swapped[0], row(cut.attentions, cut.n, model.heads, 1, 2, 0), 1e-5, 'swapped row 0 from the link');
    await p.close();
    // A head out of the model's range is refused with a notice, the rest kept.
    const q = autoSettle(await h.open(context, '#engine=model&model-head=2.0'));
    await settled(q);
    assert.match(await q.textContent('#notice-text'), /model-head/);
    await q.close();
  });

  test('on a phone (390 × 844)', async () => {
    const phone = await h.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const p = autoSettle(await h.open(phone, `#engine=model&q=${encodeURIComponent(SENTENCE)}&k=${encodeURIComponent(SECOND)}&head-score=cosine&model-head=0.1`));
    await settled(p);
    await p.waitForSelector('#figure-model-heads g.panel');
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 1, `the page does not scroll sideways (${overflow} px)`);
    await shot('model-demo-phone', p);
    await phone.close();
  });

  test('back to the scoring functions: the explorer draws again', async () => {
    await page.check('#engine-scores');
    assert.equal(await hashParam('engine', null), null);
    assert.ok(await page.isVisible('#figure-heatmap'));
    assert.ok(await page.isHidden('#model-views'));
    assert.ok(await page.locator('#figure-heatmap svg.heatmap g.cells rect').count() > 0);
    assert.match(await page.textContent('#load-text'), /^Ready: 50,000 words/);
  });

  test('a model file that cannot be fetched: a notice, and the explorer keeps working', async () => {
    const ctx = await h.newContext();
    await ctx.route('**/use-lite.bin', (route) => route.fulfill({ status: 404, body: 'not here' }));
    const p = autoSettle(await h.open(ctx, '#engine=model'));
    await settled(p);
    await p.waitForSelector('#notice:not([hidden])');
    assert.match(await p.textContent('#notice-text'), /The trained model could not compute this: .*use-lite\.bin/);
    await p.check('#engine-scores');
    assert.ok(await p.locator('#figure-heatmap svg.heatmap g.cells rect').count() > 0);
    await ctx.close();
    h.log.consoleErrors = h.log.consoleErrors.filter((e) => !/404|use-lite/.test(e));   // the refused download itself
  });

  test('no errors on the page', () => {
    assert.deepEqual(h.log.pageErrors, []);
    assert.deepEqual(h.log.consoleErrors, []);
    assert.deepEqual(h.log.outside, []);
  });
});
