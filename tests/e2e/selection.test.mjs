// Selections (issue 11): several query rows or key columns chosen by shift-click, drag and keyboard,
// their summed and mean attention checked against the API's weights (numbers read from the page and
// its downloads, never pixels), the URL round trip of a selection, and the head summary (mean and
// max over heads, entropy per row and per head) against a JS reference.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, attendOptions, parseShown, parseCSV, outDir, autoSettle } from '../../scripts/browser-harness.mjs';

let h, context, page;
const S = { q: 'The cat sat on the mat.', k: 'A kitten rested on the rug.', score: 'cosine', t: 0.1 };
const HASH = '#q=The+cat+sat+on+the+mat.&k=A+kitten+rested+on+the+rug.';

before(async () => {
  h = await setup();
  context = await h.newContext({ viewport: { width: 1440, height: 900 } });
  page = autoSettle(await h.open(context, HASH));
});
after(async () => { if (h) await h.close(); });

const expected = (s = {}) => h.scope.attend(attendOptions({ ...S, ...s }));
/** Waits until the URL (written 150 ms after a change) says `field=value`, or has no `field` when value is ''. */
async function urlSays(field, value, p = page) {
  await p.waitForFunction(([f, v]) => {
    const params = new URLSearchParams(location.hash.slice(1));
    return v === '' ? !params.has(f) : params.get(f) === v;
  }, [field, value], { timeout: 5000 }).catch(() => {});
  const params = new URLSearchParams((await p.evaluate(() => location.hash)).slice(1));
  return params.get(field) ?? '';
}
const selected = (strip, p = page) => p.locator(`${strip} .chip`).evaluateAll((cs) => cs.flatMap((c, k) => (c.getAttribute('aria-selected') === 'true' ? [k] : [])));
/** The numbers the selection summary shows for block 'rows' or 'cols': [{ sum, mean }] per token. */
async function shown(block, p = page) {
  await p.locator('#figure-selection').scrollIntoViewIfNeeded();
  return p.locator(`#figure-selection .sel-${block} g.sel-line`).evaluateAll((gs) => gs.map((g) => [
    g.querySelector('.sum-value').textContent, g.querySelector('.mean-value').textContent]))
    .then((rows) => rows.map(([s, m]) => ({ sum: parseShown(s.replace('Σ ', '')), mean: parseShown(m.replace('mean ', '')) })));
}
function close(a, b, rel = 5e-3, abs = 1e-6) {
  return Math.abs(a - b) <= Math.max(abs, rel * Math.abs(b));
}
/** Reference sums over rows (per key) or over columns (per query) of head `head` of r.weights. */
function reference(r, kind, list, head = 0) {
  const w = r.weights.subarray(head * r.nq * r.nk, (head + 1) * r.nq * r.nk);
  const n = kind === 'rows' ? r.nk : r.nq;
  return Array.from({ length: n }, (_, t) => {
    let sum = 0;
    for (const s of list) sum += kind === 'rows' ? w[s * r.nk + t] : w[t * r.nk + s];
    return { sum, mean: sum / list.length };
  });
}
function assertShown(got, want, what) {
  assert.equal(got.length, want.length, `${what}: one line per token`);
  got.forEach((g, t) => {
    assert.ok(close(g.sum, want[t].sum), `${what} ${t}: shown sum ${g.sum}, weights sum to ${want[t].sum}`);
    assert.ok(close(g.mean, want[t].mean), `${what} ${t}: shown mean ${g.mean}, expected ${want[t].mean}`);
  });
}
async function download(selector, p = page) {
  const [dl] = await Promise.all([p.waitForEvent('download'), p.click(selector)]);
  return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), 'utf8'), bytes: readFileSync(await dl.path()) };
}
const rowLabel = (i) => page.locator('#figure-heatmap .row-labels text').nth(i);
const colLabel = (j) => page.locator('#figure-heatmap .col-labels text').nth(j);

describe('query rows', () => {
  test('with nothing selected, the summary shows the open cell\'s row and column', async () => {
    const nk = expected().nk;
    await page.locator('#figure-heatmap g.cells rect').nth(1 * nk + 1).click();
    const r = expected();
    assert.match(await page.textContent('#figure-selection .fig-title'), /open cell/);
    assertShown(await shown('rows'), reference(r, 'rows', [1]), 'row of the open cell');
    assertShown(await shown('cols'), reference(r, 'cols', [1]), 'column of the open cell');
  });

  test('click a row label, shift-click another: the rows between are selected, summed and averaged', async () => {
    await rowLabel(1).click();
    await rowLabel(3).click({ modifiers: ['Shift'] });
    assert.deepEqual(await selected('#query-tokens'), [1, 2, 3]);
    assert.equal(await urlSays('rows', '1-3'), '1-3');
    assert.equal(await page.locator('#figure-heatmap .sel-band.sel-row').count(), 1, 'one band around the three rows');
    assert.deepEqual(await page.locator('#figure-heatmap .row-labels text.selected').allTextContents(), ['cat', 'sat', 'on']);
    // The line view marks the same query words and fades the other rows' lines (7 keys a row).
    assert.deepEqual(await page.locator('#figure-lines g.tokens.left g.tok.selected').allTextContents(), ['cat', 'sat', 'on']);
    const faded = await page.locator('#figure-lines g.lines line').evaluateAll((ls) => ls.map((l) => l.classList.contains('unselected')));
    assert.deepEqual(faded, Array.from({ length: 7 * 7 }, (_, k) => ![1, 2, 3].includes(Math.floor(k / 7))));
    assert.equal(await page.locator('#figure-lines g.lines line.unselected').first().evaluate((l) => getComputedStyle(l).opacity), '0.12');
    const r = expected();
    assertShown(await shown('rows'), reference(r, 'rows', [1, 2, 3]), 'key');
    // Rows sum to 1: the mean over the selected rows is a distribution over the keys again.
    const means = (await shown('rows')).map((x) => x.mean);
    assert.ok(Math.abs(means.reduce((a, b) => a + b, 0) - 1) < 0.01);
    assert.equal(await page.locator('#figure-selection .sel-cols').count(), 0, 'no column block');
  });

  test('ctrl-click adds or removes a row; shift-click on a cell extends the rows', async () => {
    await rowLabel(5).click({ modifiers: ['Control'] });
    assert.deepEqual(await selected('#query-tokens'), [1, 2, 3, 5]);
    await rowLabel(2).click({ modifiers: ['Control'] });
    assert.deepEqual(await selected('#query-tokens'), [1, 3, 5]);
    assert.equal(await urlSays('rows', '1,3,5'), '1,3,5');
    assertShown(await shown('rows'), reference(expected(), 'rows', [1, 3, 5]), 'key');
    // A plain click on a cell opens it (and keeps the selection); a shift-click on a cell extends the rows.
    await rowLabel(0).click();
    const nk = expected().nk;
    await page.locator('#figure-heatmap g.cells rect').nth(2 * nk + 4).click({ modifiers: ['Shift'] });
    assert.deepEqual(await selected('#query-tokens'), [0, 1, 2]);
  });

  test('drag along the query token strip selects a range', async () => {
    const chips = page.locator('#query-tokens .chip');
    const a = await chips.nth(1).boundingBox(), b = await chips.nth(4).boundingBox();
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width / 2 - 10, b.y + b.height / 2, { steps: 8 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 2 });
    await page.mouse.up();
    assert.deepEqual(await selected('#query-tokens'), [1, 2, 3, 4]);
    assert.equal(await urlSays('rows', '1-4'), '1-4');
    assertShown(await shown('rows'), reference(expected(), 'rows', [1, 2, 3, 4]), 'key');
  });

  test('drag down the heatmap\'s row labels selects a range', async () => {
    const a = await rowLabel(5).boundingBox(), b = await rowLabel(3).boundingBox();
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 6 });
    await page.mouse.up();
    assert.deepEqual(await selected('#query-tokens'), [3, 4, 5]);
    assertShown(await shown('rows'), reference(expected(), 'rows', [3, 4, 5]), 'key');
  });

  test('keyboard: on the token strip Escape clears, Space toggles, Shift+arrows extend, Ctrl+A selects all', async () => {
    await page.locator('#query-tokens .chip[tabindex="0"]').focus();
    await page.keyboard.press('Escape');
    assert.equal(await urlSays('rows', ''), '');
    assert.deepEqual(await selected('#query-tokens'), []);
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Space');
    assert.deepEqual(await selected('#query-tokens'), [2]);
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    assert.deepEqual(await selected('#query-tokens'), [2, 3, 4]);
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'the', 'the focus stays on the strip, on the last word');
    assert.equal(await urlSays('rows', '2-4'), '2-4');
    assertShown(await shown('rows'), reference(expected(), 'rows', [2, 3, 4]), 'key');
    await page.locator('#query-tokens .chip[tabindex="0"]').focus();
    await page.keyboard.press('Control+a');
    assert.deepEqual(await selected('#query-tokens'), [0, 1, 2, 3, 4, 5, 6]);
    await page.keyboard.press('Escape');
  });

  test('keyboard: on the heatmap Shift+Down extends the rows from the cursor, Shift+Right the columns', async () => {
    await page.focus('#figure-heatmap svg.heatmap');
    for (let k = 0; k < 8; k++) await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');   // the cursor on row 1, column 0
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    assert.deepEqual(await selected('#query-tokens'), [1, 2, 3]);
    await page.keyboard.press('Shift+ArrowRight');
    assert.equal(await urlSays('cols', '0,1'), '0,1');
    assert.equal(await urlSays('rows', '1-3'), '1-3');
    assertShown(await shown('rows'), reference(expected(), 'rows', [1, 2, 3]), 'key');
    assertShown(await shown('cols'), reference(expected(), 'cols', [0, 1]), 'query');
  });
});

describe('key columns', () => {
  test('click a column label and shift-click another: who attends to those words, per query', async () => {
    await page.click('#figure-selection .clear-selection');
    assert.equal(await urlSays('rows', ''), '');
    assert.equal(await urlSays('cols', ''), '');
    await colLabel(1).click();
    await colLabel(2).click({ modifiers: ['Shift'] });
    assert.deepEqual(await selected('#key-tokens'), [1, 2]);
    assert.equal(await page.locator('#figure-heatmap .sel-band.sel-col').count(), 1);
    const r = expected();
    assertShown(await shown('cols'), reference(r, 'cols', [1, 2]), 'query');
    assert.match(await page.textContent('#figure-selection .sel-cols .sel-title'), /Who attends to “kitten” and “rested”/);
  });

  test('the key token strip selects columns too, and the numbers download as CSV and JSON', async () => {
    await page.locator('#key-tokens .chip').nth(5).click({ modifiers: ['Control'] });
    assert.deepEqual(await selected('#key-tokens'), [1, 2, 5]);
    await rowLabel(0).click();
    await rowLabel(1).click({ modifiers: ['Shift'] });
    const r = expected();
    const json = JSON.parse((await download('#figure-selection button.export-json')).text);
    assert.deepEqual(json.rows.selected, [0, 1]);
    assert.deepEqual(json.cols.selected, [1, 2, 5]);
    const wantRows = reference(r, 'rows', [0, 1]), wantCols = reference(r, 'cols', [1, 2, 5]);
    json.rows.sum.forEach((v, t) => assert.ok(close(v, wantRows[t].sum, 1e-5), `rows sum ${t}`));
    json.rows.mean.forEach((v, t) => assert.ok(close(v, wantRows[t].mean, 1e-5), `rows mean ${t}`));
    json.cols.sum.forEach((v, t) => assert.ok(close(v, wantCols[t].sum, 1e-5), `cols sum ${t}`));
    json.cols.mean.forEach((v, t) => assert.ok(close(v, wantCols[t].mean, 1e-5), `cols mean ${t}`));
    const csv = parseCSV((await download('#figure-selection button.export-csv')).text);
    assert.deepEqual(csv[0], ['selection', 'selected', 'index', 'token', 'sum', 'mean']);
    assert.equal(csv.length, 1 + r.nk + r.nq);
    const line = csv.find((c) => c[0] === 'cols' && c[2] === '3');
    assert.equal(line[3], r.queryTokens[3]);
    assert.ok(close(Number(line[4]), wantCols[3].sum, 1e-5));
    const png = await download('#figure-selection button.export-png');
    assert.equal(png.bytes.subarray(1, 4).toString(), 'PNG');
    await page.locator('#figure-selection').screenshot({ path: join(outDir, 'selection-summary.png') });
  });
});

describe('the token strips', () => {
  test('typing rebuilds only the chips from the first changed token on; the strips always equal the API\'s tokens', async () => {
    const p = autoSettle(await h.open(context, `${HASH}&cols=1-2`));
    const chips = (strip) => p.locator(`${strip} .chip`).evaluateAll((cs) => cs.map((c) => ({
      text: c.firstChild.textContent, oov: c.classList.contains('oov'), kept: c.dataset.probe === 'old' })));
    const count = (strip) => p.textContent(`${strip} .chip-count`);
    const tokens = (q, k = S.k) => {
      const r = h.scope.attend(attendOptions({ ...S, q, k }));
      return { q: r.queryTokenInfo.map((t) => t.text), k: r.keyTokenInfo.map((t) => t.text), oov: r.queryTokenInfo.map((t) => !!t.oov) };
    };
    const mark = () => p.evaluate(() => { for (const c of document.querySelectorAll('.chip')) c.dataset.probe = 'old'; });
    await mark();
    await p.focus('#query');
    await p.keyboard.press('End');
    await p.keyboard.type(' again zzqx');
    let want = tokens('The cat sat on the mat. again zzqx');
    let got = await chips('#query-tokens');
    assert.deepEqual(got.map((c) => c.text), want.q);
    assert.deepEqual(got.map((c) => c.oov), want.oov, 'the word out of the vocabulary is marked');
    assert.deepEqual(got.map((c) => c.kept), want.q.map((_, i) => i < 7), 'the 7 chips before the typing are the same elements');
    assert.equal(await count('#query-tokens'), `${want.q.length} tokens`);
    // The key strip did not change at all, and keeps its selected columns.
    assert.ok((await chips('#key-tokens')).every((c) => c.kept));
    assert.deepEqual(await selected('#key-tokens', p), [1, 2]);
    for (let i = 0; i < ' zzqx'.length; i++) await p.keyboard.press('Backspace');
    want = tokens('The cat sat on the mat. again');
    got = await chips('#query-tokens');
    assert.deepEqual(got.map((c) => c.text), want.q);
    assert.ok(!got.some((c) => c.oov), 'the mark went with the word');
    assert.equal(await count('#query-tokens'), `${want.q.length} tokens`);
    // A change in the middle: the chips from it on are new, the ones before it stay.
    await mark();
    await p.fill('#query', 'The dog sat on the mat. again');
    got = await chips('#query-tokens');
    assert.deepEqual(got.map((c) => c.text), tokens('The dog sat on the mat. again').q);
    assert.deepEqual(got.map((c) => c.kept), got.map((_, i) => i === 0));
    await p.close();
  });
});

describe('the URL', () => {
  test('a selection survives the round trip through the URL, and new text clears it', async () => {
    assert.equal(await urlSays('rows', '0,1'), '0,1');
    assert.equal(await urlSays('cols', '1,2,5'), '1,2,5');
    const before = { rows: await shown('rows'), cols: await shown('cols') };
    const url = page.url();
    const p2 = autoSettle(await h.open(context, new URL(url).hash));
    assert.deepEqual(await selected('#query-tokens', p2), [0, 1]);
    assert.deepEqual(await selected('#key-tokens', p2), [1, 2, 5]);
    assert.deepEqual(await p2.locator('#figure-heatmap .row-labels text.selected').allTextContents(), ['The', 'cat']);
    assert.deepEqual({ rows: await shown('rows', p2), cols: await shown('cols', p2) }, before);
    // Other words: the old selection would point at other tokens, so it goes.
    await p2.fill('#query', 'A different sentence now.');
    assert.equal(await urlSays('rows', '', p2), '');
    assert.equal(await urlSays('cols', '1,2,5', p2), '1,2,5', 'the key sentence did not change: its columns stay');
    await p2.fill('#keys', 'Other keys.');
    assert.equal(await urlSays('cols', '', p2), '');
    await p2.close();
  });

  test('a selection beyond the tokens is ignored; a malformed one is reported and dropped', async () => {
    const p = autoSettle(await h.open(context, `${HASH}&rows=2,40-50&cols=9-3`));
    assert.deepEqual(await selected('#query-tokens', p), [2]);
    assert.match(await p.textContent('#notice-text'), /cols “9-3” has a backwards range/);
    assertShown(await shown('rows', p), reference(expected(), 'rows', [2]), 'key');
    await p.close();
  });
});

describe('heads summarised', () => {
  test('mean and max over heads and the entropies equal a JS reference computed from the API\'s weights', async () => {
    const s = { heads: 4, proj: 'random', seed: 7 };
    const p = autoSettle(await h.open(context, `${HASH}&heads=4&proj=random&seed=7`));
    await p.locator('#figure-headsum').scrollIntoViewIfNeeded();
    await p.waitForSelector('#figure-headsum .head-mean-entropy');
    const r = expected(s);
    const { nq, nk, heads } = r;
    const ref = { mean: [], max: [], rowEntropy: [], meanEntropy: [], maxWeight: [], meanRowMax: [] };
    for (let i = 0; i < nq; i++) {
      ref.mean.push([]); ref.max.push([]);
      for (let j = 0; j < nk; j++) {
        let sum = 0, max = -Infinity;
        for (let hd = 0; hd < heads; hd++) { const v = r.weights[hd * nq * nk + i * nk + j]; sum += v; max = Math.max(max, v); }
        ref.mean[i].push(sum / heads); ref.max[i].push(max);
      }
    }
    for (let hd = 0; hd < heads; hd++) {
      const rows = [];
      let top = 0, rowMaxSum = 0;
      for (let i = 0; i < nq; i++) {
        let e = 0, rowMax = 0;
        for (let j = 0; j < nk; j++) {
          const a = r.weights[hd * nq * nk + i * nk + j];
          if (a > 0) e -= a * Math.log(a);
          rowMax = Math.max(rowMax, a);
        }
        rows.push(e); top = Math.max(top, rowMax); rowMaxSum += rowMax;
      }
      ref.rowEntropy.push(rows);
      ref.meanEntropy.push(rows.reduce((a, b) => a + b, 0) / nq);
      ref.maxWeight.push(top);
      ref.meanRowMax.push(rowMaxSum / nq);
    }
    const json = JSON.parse((await download('#figure-headsum button.export-json', p)).text);
    assert.equal(json.heads, 4);
    assert.deepEqual(json.queryTokens, r.queryTokens);
    const near = (a, b, what) => {
      assert.equal(a.length, b.length, what);
      a.forEach((x, k) => (Array.isArray(x) ? near(x, b[k], `${what}[${k}]`) : assert.ok(close(x, b[k], 1e-4, 1e-6), `${what}[${k}]: ${x} vs ${b[k]}`)));
    };
    for (const key of Object.keys(ref)) near(json[key], ref[key], key);
    // The mean over heads keeps every row summing to 1.
    for (const row of json.mean) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4);
    // What the figure shows: each head's mean entropy, and the row entropies.
    const shownMean = (await p.locator('#figure-headsum .head-mean-entropy').allTextContents()).map(parseShown);
    shownMean.forEach((v, hd) => assert.ok(close(v, ref.meanEntropy[hd], 5e-3), `head ${hd + 1}: shown ${v}, expected ${ref.meanEntropy[hd]}`));
    const shownRows = (await p.locator('#figure-headsum .row-entropy').allTextContents()).map(parseShown);
    assert.equal(shownRows.length, heads * nq);
    shownRows.forEach((v, k) => assert.ok(close(v, ref.rowEntropy[Math.floor(k / nq)][k % nq], 5e-3, 1e-3), `row entropy ${k}`));
    // CSV: the same numbers in long form.
    const csv = parseCSV((await download('#figure-headsum button.export-csv', p)).text);
    assert.deepEqual(csv[0], ['what', 'head', 'query_index', 'query_token', 'key_index', 'key_token', 'value']);
    assert.equal(csv.length, 1 + 2 * nq * nk + heads * nq + 3 * heads);
    const m = csv.find((c) => c[0] === 'max' && c[2] === '2' && c[4] === '3');
    assert.ok(close(Number(m[6]), ref.max[2][3], 1e-5));
    for (const format of ['png', 'svg']) {
      const f = await download(`#figure-headsum button.export-${format}`, p);
      assert.ok(f.bytes.length > 1000, `${format} is not empty`);
    }
    await p.locator('#figure-headsum').screenshot({ path: join(outDir, 'head-summary.png') });
    await p.close();
  });
});

test('no console error, no page error, no request elsewhere', () => {
  assert.deepEqual(h.log.pageErrors, []);
  assert.deepEqual(h.log.consoleErrors, []);
  assert.deepEqual(h.log.outside, []);
});
