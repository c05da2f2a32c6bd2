// <attn-scope model="use-lite"> and its head, head-score, head-temperature and knock-out attributes (issue 34 item 7),
// and <attn-scope model="transformer"> showing a decoder saved by model.save() (issue 32),
// in headless Chromium, the way a lecture note written with MkDocs holds two of them in a narrow
// column. Expected numbers come from the single-file module in node (dist/attnscope.single.mjs with
// dist/use-lite.bin: the same wasm and weights). Screenshots go to test-output/element-model-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { fmt } from '../../web/shared/figures/base.js';
import { CHROMIUM_ARGS, offlineContext, root, outDir, gridCursor } from '../../scripts/browser-harness.mjs';

const SENT = 'The animal didn\'t cross the street because it was too tired.';
const MODEL_URL = 'http://models.attnscope.test/use-lite.bin';
let browser, dir, single, model;
const errors = [];

// A MkDocs-like page: a 640 px column of text with two elements in it (one as the note's author
// wrote it, one with a surgery given by its attributes) and three with a wrong attribute each.
function notePage() {
  const file = join(dir, 'note.html');
  const el = (id, attrs) => `<attn-scope id="${id}" model="use-lite" model-src="${MODEL_URL}" ${attrs}></attn-scope>`;
  writeFileSync(file, `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Lecture 5</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body { margin: 0; font: 16px sans-serif; } main { max-width: 640px; margin: 0 auto; padding: 0 16px; }</style>
<script src="attnscope-element.js"></script></head>
<body><main><h1>Lecture 5: heads of a trained model</h1>
${el('plain', `query="${SENT.replace(/'/g, '&#39;')}"`)}
${el('cut', `query="${SENT.replace(/'/g, '&#39;')}" head="1.2" head-score="cosine" head-temperature="0.1" knock-out=" 1.3 , 0.1"`)}
${el('bad-head', 'query="Hello." head="2.0"')}
${el('bad-knock', 'query="Hello." knock-out="0.1,0.4"')}
${el('bad-score', 'query="Hello." head-score="cosinus"')}
${el('bad-tau', 'query="Hello." head-temperature="0.3"')}
</main></body></html>\n`);
  return pathToFileURL(file).href;
}

async function open(viewport) {
  const context = await offlineContext(browser, { viewport });
  await context.route('http://models.attnscope.test/**', (route) => route.fulfill({ status: 200, body: readFileSync(join(root, 'dist/use-lite.bin')),
    headers: { 'content-type': 'application/octet-stream', 'access-control-allow-origin': '*' } }));
  const p = await context.newPage();
  p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  p.on('pageerror', (e) => errors.push(`page error ${e}`));
  await p.goto(notePage());
  await settled(p);
  return p;
}

/** Waits until every element has drawn (or failed), drawing those out of view too. */
async function settled(p) {
  await p.waitForFunction(() => [...document.querySelectorAll('attn-scope')].every((el) => {
    el.flush();
    return el.result || !el.shadowRoot.querySelector('.attn-error').hidden;
  }), null, { timeout: 60000 });
}

/** The grid's panels: their titles (as read: the two lines of a narrow one joined) and boxes. */
const grid = (p, id) => p.$eval(`#${id}`, (el) => [...el.shadowRoot.querySelectorAll('#figure-model-heads g.panel')].map((g) => {
  const b = g.querySelector('.panel-frame').getBoundingClientRect();
  const t = g.querySelector('.panel-title').getBoundingClientRect();
  const s = g.querySelector('.panel-sub').getBoundingClientRect();
  return { title: g.querySelector('.panel-title').textContent, label: g.getAttribute('aria-label'),
    top: Math.round(b.top), left: b.left, right: Math.max(b.right, t.right, s.right), textLeft: Math.min(t.left, s.left) };
}));

before(async () => {
  mkdirSync(outDir, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'attnscope-element-model-'));
  copyFileSync(join(root, 'dist/attnscope-element.js'), join(dir, 'attnscope-element.js'));
  const { createAttnScope } = await import(pathToFileURL(join(root, 'dist/attnscope.single.mjs')).href);
  single = await createAttnScope();
  model = await single.loadModel({ model: readFileSync(join(root, 'dist/use-lite.bin')) });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
after(async () => {
  if (browser) await browser.close();
  if (model) model.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('head, head-score and knock-out (labels from 0, as the API) set the surgery; the figures write them back', async () => {
  const p = await open({ width: 1366, height: 768 });
  // The attributes' surgery is the API's: the same labels, the same numbers.
  const cut = model.encode(SENT, { score: { '1.2': 'cosine' }, temperature: { '1.2': 0.1 }, ablate: ['0.1', '1.3'] });
  const got = await p.$eval('#cut', (el) => ({ head: el.result.head, swap: el.result.swap, tau: el.result.tau, knock: el.result.knock,
    surgery: Array.from(el.result.surgery), title: el.shadowRoot.querySelector('#figure-model-head h1, #figure-model-head h2, #figure-model-head h3').textContent,
    tauMenu: el.shadowRoot.querySelector('#figure-model-head select.model-tau-select').value,
    props: [el.head, el.headScore, el.headTemperature, el.knockOut] }));
  assert.deepEqual([got.head, got.swap, got.tau, got.knock], ['1.2', 'cosine', 0.1, ['0.1', '1.3']]);
  assert.equal(got.tauMenu, '0.1');
  assert.equal(got.surgery.length, cut.attentions.length);
  got.surgery.forEach((x, k) => assert.ok(Math.abs(x - cut.attentions[k]) < 1e-5, `attention ${k}: ${x} vs ${cut.attentions[k]}`));
  assert.match(got.title, /^layer 2, head 3: /, 'the screen counts from 1');
  assert.deepEqual(got.props, ['1.2', 'cosine', '0.1', ' 1.3 , 0.1']);
  const panels = await grid(p, 'cut');
  assert.match(panels.find((x) => /layer 1,\s*head 2/.test(x.title)).label, /knocked out/);
  assert.match(panels.find((x) => /layer 2,\s*head 3/.test(x.title)).label, /cosine, τ 0\.1/);

  // Without the attributes: the model as trained, head 0.0.
  const plain = await p.$eval('#plain', (el) => ({ head: el.result.head, swap: el.result.swap, knock: el.result.knock, changed: el.result.changed }));
  assert.deepEqual(plain, { head: '0.0', swap: 'scaled-dot', knock: [], changed: false });

  // From inside the element: picking a panel, choosing a score and ticking a knock-out write the attributes.
  await p.$eval('#plain', (el) => {
    window.changes = [];
    el.addEventListener('attn-change', (ev) => window.changes.push(...ev.detail.changed));
  });
  await p.$eval('#plain', (el) => el.shadowRoot.querySelectorAll('#figure-model-heads g.panel')[6].dispatchEvent(new MouseEvent('click', { bubbles: true })));
  await p.waitForFunction(() => document.getElementById('plain').result.head === '1.2');
  assert.equal(await p.$eval('#plain', (el) => el.getAttribute('head')), '1.2');
  await p.$eval('#plain', (el) => {
    const sel = el.shadowRoot.querySelector('#figure-model-head select.model-swap-select');
    sel.value = 'dot';
    sel.dispatchEvent(new Event('change'));
  });
  await p.waitForFunction(() => document.getElementById('plain').result.swap === 'dot');
  await p.$eval('#plain', (el) => {
    const sel = el.shadowRoot.querySelector('#figure-model-head select.model-tau-select');
    sel.value = '0.5';
    sel.dispatchEvent(new Event('change'));
  });
  await p.waitForFunction(() => document.getElementById('plain').result.tau === 0.5);
  assert.equal(await p.$eval('#plain', (el) => el.getAttribute('head-temperature')), '0.5');
  await p.$eval('#plain', (el) => el.shadowRoot.querySelector('#figure-model-knock input[value="1.0"]').click());
  await p.waitForFunction(() => document.getElementById('plain').result.knock.length === 1);
  assert.deepEqual(await p.$eval('#plain', (el) => [el.getAttribute('head-score'), el.getAttribute('knock-out'), el.headScore, el.knockOut]),
    ['dot', '1.0', 'dot', '1.0']);
  // attn-change names the attributes (once every figure has drawn: flush draws those out of view).
  await p.waitForFunction(() => {
    document.getElementById('plain').flush();
    return ['head', 'head-score', 'knock-out'].every((a) => window.changes.includes(a));
  });
  // Properties mirror the attributes: setting one redraws.
  await p.$eval('#plain', (el) => { el.knockOut = ''; el.headScore = 'scaled-dot'; el.headTemperature = 1; });
  await p.waitForFunction(() => { const r = document.getElementById('plain').result; return r.knock.length === 0 && r.swap === 'scaled-dot' && r.tau === 1; });
  assert.equal(await p.$eval('#plain', (el) => el.result.changed), false);

  // A wrong attribute says what is allowed, counting as the API counts.
  const error = (id) => p.$eval(`#${id}`, (el) => el.shadowRoot.querySelector('.attn-error').textContent);
  assert.match(await error('bad-head'), /head="2\.0" is not valid: expected a head “layer\.head” of the model, both counted from 0 .*layers 0–1, heads 0–3/);
  assert.match(await error('bad-knock'), /knock-out="0\.1,0\.4" is not valid: .*counted from 0/);
  assert.match(await error('bad-score'), /head-score="cosinus" is not valid: expected one of .*scaled-dot/);
  assert.match(await error('bad-tau'), /head-temperature="0\.3" is not valid: expected one of 2, 1, 0\.5, 0\.2, 0\.1, 0\.05 \(1: the model's own\)/);
  await p.locator('#cut').screenshot({ path: join(outDir, 'element-model-attributes.png') });
  await p.context().close();
});

test('the head view: token labels on both axes, one colour scale for the two weights panels, a keyboard grid', async () => {
  const p = await open({ width: 1366, height: 768 });
  const cut = model.encode(SENT, { score: { '1.2': 'cosine' }, temperature: { '1.2': 0.1 }, ablate: ['0.1', '1.3'] });
  const base = model.encode(SENT);
  const n = cut.n, at = (a, i, j) => a[((1 * 4 + 2) * n + i) * n + j];   // head 1.2's weight (i, j)
  const view = await p.$eval('#cut', (el) => {
    const s = el.shadowRoot.querySelector('#figure-model-head');
    return [...s.querySelectorAll('g.mpanel')].map((g) => ({
      title: g.querySelector('.panel-title').textContent,
      cols: [...g.querySelectorAll('.col-labels text')].map((t) => t.textContent),
      scale: [...g.querySelectorAll('.legend .legend-label')].map((t) => t.textContent),
    }));
  });
  assert.deepEqual(view.map((x) => x.title), ['as trained', 'cosine at τ = 0.1', 'difference']);
  for (const x of view) assert.equal(x.cols.length, n, `${x.title}: a label per column`);
  // One scale for as trained and with the surgery: 0 to the larger of their largest weights.
  let top = 0, diff = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    top = Math.max(top, at(base.attentions, i, j), at(cut.attentions, i, j));
    diff = Math.max(diff, Math.abs(at(cut.attentions, i, j) - at(base.attentions, i, j)));
  }
  assert.deepEqual(view[0].scale, ['0', fmt(top)]);
  assert.deepEqual(view[1].scale, view[0].scale);
  assert.deepEqual(view[2].scale, [`−${fmt(diff)}`, '0', `+${fmt(diff)}`]);
  // The keyboard: one tab stop, the arrows move a cursor that says every panel's value there.
  const grid = p.locator('#cut').locator('#figure-model-head svg[role="grid"]');
  await grid.focus();
  await p.keyboard.press('ArrowDown');
  await p.keyboard.press('ArrowRight');
  await p.keyboard.press('ArrowRight');
  const said = await gridCursor(grid);
  const w0 = at(base.attentions, 1, 2), w1 = at(cut.attentions, 1, 2);
  assert.equal(said, `Row 2, ${cut.tokens[1]}; column 3, ${cut.tokens[2]}: “${cut.tokens[1]}” → “${cut.tokens[2]}”: as trained: ${fmt(w0)}; `
    + `cosine at τ = 0.1: ${fmt(w1)}; difference: ${fmt(w1 - w0)}`);
  assert.match(await p.$eval('#cut', (el) => el.shadowRoot.querySelector('#figure-model-head .matrix-readout').textContent), /as trained: .*; cosine at τ = 0\.1: /);
  await p.context().close();
});

test('the ten-function comparison: token labels on both axes, one colour scale across the panels (#34 item 4)', async () => {
  const Q = 'The cat sat on the mat because it was tired.';
  const context = await offlineContext(browser, { viewport: { width: 1366, height: 768 } });
  const p = await context.newPage();
  p.on('pageerror', (e) => errors.push(`page error ${e}`));
  const file = join(dir, 'compare.html');
  writeFileSync(file, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>compare</title><script src="attnscope-element.js"></script></head>
<body><main><h1>Compare</h1><attn-scope id="c" view="compare" score="cosine" temperature="1" controls="none" query="${Q}"></attn-scope></main></body></html>`);
  await p.goto(pathToFileURL(file).href);
  await settled(p);
  const got = await p.$eval('#c', (el) => {
    const f = el.shadowRoot.querySelector('#figure-compare');
    return { panels: f.querySelectorAll('g.panel').length, ticks: [...f.querySelectorAll('.multiples-extras .tick')].map((t) => t.textContent),
      legend: [...f.querySelectorAll('.multiples-extras .legend-label')].map((t) => t.textContent), caption: f.querySelector('.fig-caption, figcaption')?.textContent || f.textContent };
  });
  // Expected: every scoring function on the same sentence in node; the scale's top is the largest weight of all.
  let top = 0, n = 0;
  for (const { name } of single.scoreFunctions) {
    const r = single.attend({ query: Q, score: name, temperature: 1 });
    n = r.nq;
    for (const w of r.weights) top = Math.max(top, w);
  }
  assert.equal(got.panels, single.scoreFunctions.length);
  const tokens = single.attend({ query: Q, score: 'dot' }).queryTokens;
  // Row labels beside each row of panels (2 rows), column labels under the lowest panel of each column (5).
  assert.equal(got.ticks.length, 2 * n + 5 * n, JSON.stringify(got.ticks));
  assert.deepEqual(got.ticks.slice(0, n), tokens);
  assert.deepEqual(got.legend, ['0', fmt(top), 'one scale, every panel']);
  assert.match(got.caption, new RegExp(`Every panel is coloured on one scale, from 0 to the largest weight of them all \\(${fmt(top)}\\)`));
  await p.locator('#c').screenshot({ path: join(outDir, 'element-model-compare.png') });
  await context.close();
});

test('on a phone (390 px): the cosine and idw formulas wrap instead of being cut, the bars\' labels are at least 8 px (#34 item 8)', async () => {
  const context = await offlineContext(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const p = await context.newPage();
  p.on('pageerror', (e) => errors.push(`page error ${e}`));
  const file = join(dir, 'phone-panels.html');
  writeFileSync(file, `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>panels</title><script src="attnscope-element.js"></script></head>
<body><main><h1>Panels</h1><attn-scope id="c" view="cosine-dot" controls="none" query="The cat sat on the mat." keys="A kitten rested on the rug."></attn-scope>
<attn-scope id="d" view="distance" controls="none" query="The cat sat on the mat." keys="A kitten rested on the rug."></attn-scope></main></body></html>`);
  await p.goto(pathToFileURL(file).href);
  await settled(p);
  for (const id of ['c', 'd']) {
    const got = await p.$eval(`#${id}`, (el) => {
      const s = el.shadowRoot, box = s.querySelector('.fig').getBoundingClientRect();
      return { parts: [...s.querySelectorAll('.formula-part')].map((e) => [e.getBoundingClientRect().right, e.scrollWidth - e.clientWidth]), right: box.right,
        labels: [...s.querySelectorAll('.bar-row-label, .bar-num')].map((t) => t.getBoundingClientRect().height) };
    });
    assert.ok(got.parts.length >= 2, `${id}: the formula is set as ${got.parts.length} equations`);
    for (const [right, hidden] of got.parts) {
      assert.ok(right <= got.right + 0.5, `${id}: an equation ends at ${right}, past the figure's ${got.right}`);
      assert.equal(hidden, 0, `${id}: an equation is cut by ${hidden}px`);
    }
    assert.ok(got.labels.length > 0 && Math.min(...got.labels) >= 8, `${id}: bar labels ${Math.min(...got.labels)} px high`);
  }
  await p.screenshot({ path: join(outDir, 'element-model-phone-panels.png'), fullPage: true });
  await context.close();
});

for (const [name, viewport] of [['mkdocs', { width: 1366, height: 768 }], ['phone', { width: 390, height: 844 }]]) {
  test(`the grid keeps one row per layer (${name}: ${viewport.width} px), its titles inside their panels`, async () => {
    const p = await open(viewport);
    for (const id of ['plain', 'cut']) {
      const panels = await grid(p, id);
      assert.equal(panels.length, 8);
      const rows = [...new Set(panels.map((x) => x.top))];
      assert.equal(rows.length, 2, `${id}: panels in ${rows.length} rows: ${JSON.stringify(panels.map((x) => x.top))}`);
      for (let k = 0; k < 8; k++) {
        assert.equal(panels[k].top, rows[Math.floor(k / 4)], `${id}: ${panels[k].title} is in layer ${Math.floor(k / 4) + 1}'s row`);
        // A panel's title and subtitle end before the next panel's begin.
        if (k % 4 < 3) assert.ok(panels[k].right <= panels[k + 1].textLeft + 0.5, `${id}: ${panels[k].title} runs into ${panels[k + 1].title}`);
      }
    }
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
    await p.screenshot({ path: join(outDir, `element-model-${name}.png`), fullPage: true });
    await p.context().close();
  });
}

// <attn-scope model="transformer">: a decoder saved by model.save() with its tokens (as transformer.html's
// “Save the model” writes it), its numbers against the same file's model in node.
test('model="transformer": a saved decoder\'s heads, its own scoring functions, the surgery and its prediction; wrong attributes named', async () => {
  const made = single.createModel({ kind: 'decoder', layers: 2, heads: 2, dModel: 16, dFF: 0, vocab: 6, maxTokens: 16,
    score: { '0.1': 'additive', '1.0': 'cosine' }, temperature: 'learned', seed: 7 });
  const params = made.parameters();
  for (const [name, v] of Object.entries(params)) for (let i = 0; i < v.length; i++) v[i] += (name.endsWith('log_tau') ? 0.3 : 0.5) * Math.sin(5 * i + v.length);
  made.setParameters(params);
  made.setTokens(['a', 'b', 'c', 'd', 'e', ' ']);
  const bytes = made.save();
  const saved = await single.loadModel({ model: bytes });
  made.dispose();
  const URL_T = 'http://models.attnscope.test/induction.safetensors';
  const context = await offlineContext(browser, { viewport: { width: 1366, height: 768 } });
  await context.route('http://models.attnscope.test/**', (route) => route.fulfill({ status: 200, body: Buffer.from(bytes),
    headers: { 'content-type': 'application/octet-stream', 'access-control-allow-origin': '*' } }));
  const p = await context.newPage();
  p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  p.on('pageerror', (e) => errors.push(`page error ${e}`));
  const el = (id, attrs) => `<attn-scope id="${id}" model="transformer" model-src="${URL_T}" ${attrs}></attn-scope>`;
  const file = join(dir, 'transformer-note.html');
  writeFileSync(file, `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Lecture 6</title>
<style>body { margin: 0; font: 16px sans-serif; } main { max-width: 640px; margin: 0 auto; padding: 0 16px; }</style>
<script src="attnscope-element.js"></script></head>
<body><main><h1>Lecture 6: a model trained in the page</h1>
${el('tplain', 'query="abcde abcd"')}
${el('tcut', 'query="abcde abcd" head="0.0" head-score="cosine" knock-out="1.1"')}
${el('tbad', 'query="abcxyz"')}
${el('tkeys', 'query="abc" keys="de"')}
${el('ttau', 'query="abc" head-temperature="0.5"')}
<attn-scope id="tnosrc" model="transformer" query="abc"></attn-scope>
<attn-scope id="tkind" model="use-lite" model-src="${URL_T}" query="abc"></attn-scope>
</main></body></html>\n`);
  await p.goto(pathToFileURL(file).href);
  await settled(p);
  try {
    const ids = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3];
    const base = saved.encodeIds(ids), cut = saved.encodeIds(ids, { score: { '0.0': 'cosine' }, ablate: ['1.1'] });
    const close = (got, want, what) => {
      assert.equal(got.length, want.length, what);
      got.forEach((x, k) => assert.ok(Math.abs(x - want[k]) < 1e-5, `${what} ${k}: ${x} vs ${want[k]}`));
    };
    const read = (id) => p.$eval(`#${id}`, (e) => ({ kind: e.result.kind, tokens: e.result.tokens, own: e.result.own, changed: e.result.changed,
      original: Array.from(e.result.original), surgery: Array.from(e.result.surgery), prediction: e.result.prediction,
      options: [...e.shadowRoot.querySelectorAll('#figure-model-head select.model-swap-select option')].map((o) => o.textContent),
      tauShown: getComputedStyle(e.shadowRoot.querySelector('#figure-model-head select.model-tau-select')).display !== 'none',
      subtitles: [...e.shadowRoot.querySelectorAll('#figure-model-heads g.panel')].map((g) => g.getAttribute('aria-label')),
      numbers: Object.fromEntries([...e.shadowRoot.querySelectorAll('#figure-model-effect dd')].map((d) => [d.dataset.measure, d.textContent])),
      said: e.shadowRoot.querySelector('#figure-model-effect .model-explain').textContent }));
    const plain = await read('tplain');
    assert.equal(plain.kind, 'decoder');
    assert.deepEqual(plain.tokens, ['a', 'b', 'c', 'd', 'e', '␣', 'a', 'b', 'c', 'd']);
    assert.deepEqual(plain.own, ['scaled-dot', 'additive', 'cosine', 'scaled-dot']);
    close(plain.original, base.attentions, 'as trained');
    assert.equal(plain.changed, false);
    assert.equal(plain.tauShown, false, 'a saved model\'s heads keep their own τ: no τ menu');
    assert.ok(plain.options.includes('scaled-dot (the model\'s own)'), 'head 0.0 scores by scaled-dot');
    // The prediction after the last token, from the logits in node.
    const last = Array.from(base.logits.subarray(9 * 6, 10 * 6));
    const best = last.indexOf(Math.max(...last));
    assert.equal(plain.prediction.before.id, best);
    assert.equal(plain.numbers['prediction-before'], `«${['a', 'b', 'c', 'd', 'e', '␣'][best]}» ${fmt(plain.prediction.before.p)}`);
    assert.match(plain.said, /its heads score by scaled-dot \(layer 1, head 1; layer 2, head 2\), additive \(layer 1, head 2\), cosine \(layer 2, head 1\)/);
    assert.match(plain.said, new RegExp(`After «d», the last token, the model predicts «${['a', 'b', 'c', 'd', 'e', '␣'][best]}»`));

    const c = await read('tcut');
    close(c.surgery, cut.attentions, 'with the surgery');
    assert.equal(c.changed, true);
    assert.ok(c.subtitles.some((x) => /layer 2, head 2.*knocked out/.test(x)), JSON.stringify(c.subtitles));
    assert.ok(c.subtitles.some((x) => /layer 1, head 1.*scored by cosine/.test(x)), JSON.stringify(c.subtitles));
    assert.match(c.said, /^Scoring layer 1, head 1 by cosine moves each of that head's rows by a total variation of [0-9.]+ on average; with layer 2, head 2 knocked out as well, the prediction of the next token moves by [0-9.]+ \(total variation\)\./);
    assert.ok('prediction-after' in c.numbers && 'prediction-tv' in c.numbers);
    // Picking another head shows its own scoring function as the model's own.
    await p.$eval('#tplain', (e) => e.shadowRoot.querySelectorAll('#figure-model-heads g.panel')[1].dispatchEvent(new MouseEvent('click', { bubbles: true })));
    await p.waitForFunction(() => document.getElementById('tplain').result.head === '0.1');
    const picked = await read('tplain');
    assert.ok(picked.options.includes('additive (the model\'s own)'), JSON.stringify(picked.options));
    assert.equal(picked.changed, false, 'the head shown with its own function: no surgery');

    const error = (id) => p.$eval(`#${id}`, (e) => e.shadowRoot.querySelector('.attn-error').textContent);
    assert.match(await error('tbad'), /query="abcxyz" is not valid: expected text made of the model's tokens \(“a” “b” “c” “d” “e” “␣”\); “x”, “y”, “z” are not among them/);
    assert.match(await error('tkeys'), /keys="de" is not valid: expected nothing: a saved decoder reads one text, the query/);
    assert.match(await error('ttau'), /head-temperature="0\.5" is not valid: expected 1: a saved transformer's heads keep their own τ/);
    assert.match(await error('tnosrc'), /model-src="" is not valid: expected the URL of a transformer saved by model\.save\(\)/);
    assert.match(await error('tkind'), /model="use-lite" is not valid: expected “transformer”: the file at model-src is a transformer saved by model\.save\(\)/);
    await p.locator('#tcut').screenshot({ path: join(outDir, 'element-model-transformer.png') });
  } finally {
    saved.dispose();
    await context.close();
  }
});

test('model="transformer" in a note opened from disk: the file beside it is chosen, and the element draws it', async () => {
  const made = single.createModel({ kind: 'decoder', layers: 1, heads: 2, dModel: 8, dFF: 0, vocab: 3, maxTokens: 8, seed: 3 });
  made.setTokens(['x', 'y', 'z']);
  writeFileSync(join(dir, 'saved.safetensors'), made.save());
  const want = made.encodeIds([0, 1, 2, 0]).attentions;
  made.dispose();
  const file = join(dir, 'disk-transformer.html');
  writeFileSync(file, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>disk</title><script src="attnscope-element.js"></script></head>
<body><main><h1>From disk</h1><attn-scope id="d" model="transformer" model-src="saved.safetensors" query="xyzx"></attn-scope></main></body></html>`);
  const context = await offlineContext(browser, { viewport: { width: 1366, height: 768 } });
  const p = await context.newPage();
  p.on('pageerror', (e) => errors.push(`page error ${e}`));
  try {
    await p.goto(pathToFileURL(file).href);
    await p.waitForFunction(() => !document.getElementById('d').shadowRoot.querySelector('.attn-error').hidden, null, { timeout: 30_000 });
    assert.match(await p.$eval('#d', (el) => el.shadowRoot.querySelector('.attn-error').textContent), /the trained model's file \(saved\.safetensors\) cannot be read by this page\. It was opened from disk/);
    assert.match(await p.$eval('#d', (el) => el.shadowRoot.querySelector('.attn-choose input').accept), /\.safetensors/);
    await p.locator('#d').locator('.attn-choose input[type=file]').setInputFiles(join(dir, 'saved.safetensors'));
    await p.waitForFunction(() => document.getElementById('d').result?.n === 4, null, { timeout: 60_000 });
    const got = await p.$eval('#d', (el) => Array.from(el.result.original));
    got.forEach((x, k) => assert.ok(Math.abs(x - want[k]) < 1e-5, `attention ${k}`));
  } finally {
    await context.close();
  }
});

test('no console error and no page error', () => {
  assert.deepEqual(errors, []);
});
