// The "Your model's attention" page (dist/web/model.html) in headless Chromium: every file format
// dropped (and one chosen through the file picker), the layers × heads grid, picking a head, the
// rollout against scope.rollout in node, bad files (a notice, and the previous view stays), the
// exports, and the URL round trip. Files come from a small random transformer (tests/js/attention-files.mjs).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, startServer, parseCSV, parseShown, outDir } from '../../scripts/browser-harness.mjs';
import { npy, npyStrings, safetensors, tinyTransformer, zip } from '../js/attention-files.mjs';
import { dropFiles, nextModelLoad } from './model-page.mjs';

const L = 3, H = 2, N = 6;
const TOKENS = ['[CLS]', 'the', 'cat', 'sat', '<b>down</b>', '[SEP]'];
const A = tinyTransformer(L, H, N, 21);
const SHAPE = [L, H, N, N];
const nested = () => Array.from({ length: L }, (_, l) => Array.from({ length: H }, (_, h) => Array.from({ length: N }, (_, i) =>
  Array.from(A.subarray(((l * H + h) * N + i) * N, ((l * H + h) * N + i + 1) * N)))));
const enc = new TextEncoder();
const FILES = {
  json: [{ name: 'att.json', bytes: enc.encode(JSON.stringify({ tokens: TOKENS, attentions: nested() })) }],
  npy: [{ name: 'att.npy', bytes: npy(A, SHAPE) }, { name: 'tokens.txt', bytes: enc.encode(TOKENS.join('\n') + '\n') }],
  npz: [{ name: 'att.npz', bytes: zip({ 'attentions.npy': npy(A, SHAPE), 'tokens.npy': npyStrings(TOKENS) }) }],
  'npz (savez_compressed)': [{ name: 'packed.npz', bytes: zip({ 'attentions.npy': npy(A, SHAPE), 'tokens.npy': npyStrings(TOKENS) }, { deflate: true }) }],
  safetensors: [{ name: 'att.safetensors', bytes: safetensors(A, SHAPE, { metadata: { tokens: JSON.stringify(TOKENS) } }) }],
};

let h, context, page;

const drop = (files, p = page) => dropFiles(p, files);
const nextLoad = (p = page) => nextModelLoad(p);
/** Drops files and waits until the page has drawn them. */
async function dropAndWait(files, p = page) {
  const loaded = nextLoad(p);
  await drop(files, p);
  return loaded;
}
/** Drops files that must fail; resolves the notice's text. */
async function dropBad(files) {
  await page.evaluate(() => { document.getElementById('notice').hidden = true; });
  await drop(files);
  await page.waitForSelector('#notice:not([hidden])');
  return page.textContent('#notice-text');
}
async function download(selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: dl.suggestedFilename(), bytes: readFileSync(await dl.path()) };
}
const gridLabels = () => page.$$eval('#figure-grid .grid-labels text', (ts) => ts.map((t) => t.textContent));
async function clickGrid(layer, head) {
  const at = await page.evaluate(([l, hd]) => {
    const svg = document.querySelector('#figure-grid svg');
    svg.scrollIntoView({ block: 'center' });   // the mouse clicks only what is in the viewport
    const img = svg.querySelector('image');
    const box = svg.getBoundingClientRect();
    const k = box.width / svg.viewBox.baseVal.width;
    const heads = document.getElementById('pick-head').options.length;
    const layers = document.getElementById('pick-layer').options.length;
    const cw = (Number(img.getAttribute('width')) + 6) / heads, ch = (Number(img.getAttribute('height')) + 6) / layers;
    return { x: box.left + (Number(img.getAttribute('x')) + hd * cw + 5) * k, y: box.top + (Number(img.getAttribute('y')) + l * ch + 5) * k };
  }, [layer, head]);
  await page.mouse.click(at.x, at.y);
}

describe('model page', () => {
  before(async () => {
    h = await setup();
    context = await h.newContext();
    page = h.watch(await context.newPage());
    await page.goto(h.server.url + 'model.html');
    await page.waitForSelector('body.model-ready', { timeout: 30000 });
  });
  after(async () => {
    await context?.close();
    await h?.close();
  });

  test('opens with the trained model (USE-Lite) on a sentence; another typed sentence replaces it', async () => {
    const model = await h.scope.loadModel();
    try {
      const first = 'The animal didn\'t cross the street because it was too tired.';
      const n = model.encode(first).n;
      assert.match(await page.textContent('#file-info'), new RegExp(`use-lite on “The animal didn't cross the street [a-z]*…”: 2 layers × 4 heads × ${n} × ${n} tokens`));
      const labels = await gridLabels();
      assert.deepEqual(labels.filter((t) => t.startsWith('H')), ['H1', 'H2', 'H3', 'H4']);
      assert.deepEqual(labels.filter((t) => t.startsWith('L')), ['L1', 'L2']);
      assert.match(await page.getAttribute('#figure-grid image', 'href'), /^data:image\/png;base64,/);
      await page.screenshot({ path: join(outDir, 'model-example.png'), fullPage: true });
      const second = 'A <b>kitten</b> rested.';
      await page.fill('#example-sentence', second);
      const loaded = nextLoad();
      await page.click('#load-example');
      assert.match(await loaded, /^use-lite on “A <b>kitten<\/b> rested\.”$/);
      const r = model.encode(second);
      assert.match(await page.textContent('#file-info'), new RegExp(`2 layers × 4 heads × ${r.n} × ${r.n} tokens`));
      assert.equal(await page.locator('#file-info b').count(), 0, 'the sentence is shown as text');
      // The rollout drawn is scope.rollout of the model's attentions.
      assert.ok(await page.locator('#figure-rollout').count());
    } finally {
      model.dispose();
    }
  });

  for (const [format, files] of Object.entries(FILES)) {
    test(`drop ${format}: the grid shows ${L} layers × ${H} heads`, async () => {
      assert.equal(await dropAndWait(files), files[0].name);
      assert.match(await page.textContent('#file-info'), new RegExp(`${L} layers × ${H} heads × ${N} × ${N} tokens`));
      const labels = await gridLabels();
      assert.deepEqual(labels.filter((t) => t.startsWith('H')), ['H1', 'H2']);
      assert.deepEqual(labels.filter((t) => t.startsWith('L')), ['L1', 'L2', 'L3']);
      // The tokens, as text (the <b> is not markup).
      const rowLabels = await page.$$eval('#figure-heatmap .row-labels text', (ts) => ts.map((t) => t.textContent));
      assert.deepEqual(rowLabels, TOKENS);
      assert.equal(await page.locator('#figure-heatmap b').count(), 0);
      assert.ok(await page.locator('#notice').isHidden(), 'no notice');
    });
  }

  test('the file picker loads a file too', async () => {
    const loaded = nextLoad();
    await page.setInputFiles('#file-input', FILES.npz.map((f) => ({ name: f.name, mimeType: 'application/octet-stream', buffer: Buffer.from(f.bytes) })));
    assert.equal(await loaded, 'att.npz');
  });

  test('picking a head in the grid opens it in the heatmap and line view, with its weights', async () => {
    await dropAndWait(FILES.npz);
    await clickGrid(2, 1);
    await page.waitForFunction(() => document.querySelector('#figure-heatmap .fig-title').textContent.startsWith('Layer 3, head 2'));
    assert.equal(await page.inputValue('#pick-layer'), '2');
    assert.equal(await page.inputValue('#pick-head'), '1');
    assert.match(await page.textContent('#figure-lines .fig-title'), /layer 3/);
    // Hover cell (4, 1): the tooltip shows that weight of layer 3, head 2.
    const cell = page.locator('#figure-heatmap g.cells rect').nth(4 * N + 1);
    await cell.hover();
    const tip = await page.textContent('#tooltip');
    const shown = parseShown(/weight (\S+)/.exec(tip)[1]);
    const want = A[((2 * H + 1) * N + 4) * N + 1];
    assert.ok(Math.abs(shown - want) <= Math.abs(want) * 1e-3, `tooltip ${shown} vs ${want}`);
    // The summaries' current cell follows, and the line view shows head 2.
    assert.equal(await page.getAttribute('#figure-lines .head-toggle:nth-child(2)', 'aria-pressed'), 'true');
  });

  test('rollout values (mean, a head, max; residual changed) match scope.rollout', async () => {
    await dropAndWait(FILES.safetensors);
    const settings = [
      { residual: '0.5', head: 'mean', opts: { residual: 0.5, head: 'mean' } },
      { residual: '0.2', head: '1', opts: { residual: 0.2, head: 1 } },
      { residual: '0.9', head: 'max', opts: { residual: 0.9, head: 'max' } },
    ];
    for (const s of settings) {
      await page.fill('#residual', s.residual);
      await page.dispatchEvent('#residual', 'change');
      await page.selectOption('#rollout-head', s.head);
      const csv = parseCSV((await download('#export-rollout-csv')).bytes.toString('utf8'));
      const R = h.scope.rollout(A, { layers: L, heads: H, n: N, ...s.opts });
      assert.deepEqual(csv[0], ['output_index', 'output_token', 'input_index', 'input_token', 'rollout']);
      assert.equal(csv.length, 1 + N * N);
      for (const [i, ti, j, tj, v] of csv.slice(1)) {
        assert.equal(ti, TOKENS[Number(i)]);
        assert.equal(tj, TOKENS[Number(j)]);
        assert.ok(Math.abs(Number(v) - R[Number(i) * N + Number(j)]) <= 1e-7, `R[${i},${j}] ${v} vs ${R[Number(i) * N + Number(j)]}`);
      }
    }
    // The chosen token's rollout bars: one per input token, the largest labelled with R's value.
    await page.selectOption('#rollout-token', '3');
    await page.waitForFunction(() => /output token 4/.test(document.querySelector('#figure-flow .fig-title').textContent));
    assert.equal(await page.locator('#figure-flow rect.flow-bar').count(), N);
    const R = h.scope.rollout(A, { layers: L, heads: H, n: N, residual: 0.9, head: 'max' });
    const values = (await page.$$eval('#figure-flow text.legend-label', (ts) => ts.map((t) => t.textContent))).map(parseShown);
    for (let j = 0; j < N; j++) assert.ok(Math.abs(values[j] - R[3 * N + j]) <= R[3 * N + j] * 5e-3, `bar ${j}`);
  });

  test('bad files: a bounded notice, and the previous view stays', async () => {
    await dropAndWait(FILES.npz);
    const info = await page.textContent('#file-info');
    const img = await page.getAttribute('#figure-grid image', 'href');
    const packed = FILES['npz (savez_compressed)'][0].bytes;
    const damaged = packed.slice(); damaged[120] ^= 0x5a;
    const withNaN = A.slice(); withNaN[(1 * H + 1) * N * N + 2 * N + 3] = NaN;
    const bad = [
      [[{ name: 'cut.npz', bytes: packed.subarray(0, packed.length - 40) }], /cut\.npz.*npz: the zip structure is truncated or corrupt/],
      [[{ name: 'damaged.npz', bytes: damaged }], /damaged\.npz.*npz: member 'attentions\.npy'/],
      [[{ name: 'nan.npy', bytes: npy(withNaN, SHAPE) }, { name: 't.txt', bytes: enc.encode(TOKENS.join('\n')) }], /nan\.npy.*NaN/],
      [[{ name: 'short.npy', bytes: npy(A, SHAPE) }, { name: 't.json', bytes: enc.encode('["a","b"]') }], /short\.npy with t\.json:.*token/],
      // Not "pass options.format": a page visitor cannot; the notice says how to save the file instead.
      [[{ name: 'junk.bin', bytes: enc.encode('x'.repeat(5000)) }], /junk\.bin.*not a recognised attention file \(.*\): save the attention with numpy\.save/],
      [[{ name: `${'long'.repeat(300)}.json`, bytes: enc.encode('{"attentions": [[1, 2], [3]]}') }], /long/],
      [[{ name: 'a.npz', bytes: packed }, { name: 'b.npz', bytes: packed }], /one attention file at a time/],
      [[{ name: 'tokens.txt', bytes: enc.encode('a\nb') }], /tokens file/],
    ];
    for (const [files, pattern] of bad) {
      const text = await dropBad(files);
      assert.match(text, pattern);
      assert.ok(text.length <= 400, `notice bounded (${text.length} characters)`);
      assert.equal(await page.textContent('#file-info'), info, 'file info unchanged');
      assert.equal(await page.getAttribute('#figure-grid image', 'href'), img, 'grid unchanged');
    }
    assert.deepEqual(h.log.pageErrors, []);
    await page.screenshot({ path: join(outDir, 'model-bad-file.png') });
  });

  test('scores before the softmax: a warning naming the worst row, and "Apply softmax"', async () => {
    const scores = A.map((x, k) => 3 * x - 0.2 + (k % 7) * 0.01);   // negative values, rows not summing to 1
    await dropAndWait([{ name: 'logits.npy', bytes: npy(scores, SHAPE) }, { name: 'tokens.json', bytes: enc.encode(JSON.stringify(TOKENS)) }]);
    assert.match(await page.textContent('#warning-text'), /rows do not sum to 1; the worst is .*layer/);
    assert.ok(await page.locator('#apply-softmax').isVisible());
    const loaded = nextLoad();
    await page.click('#apply-softmax');
    await loaded;
    assert.match(await page.textContent('#file-info'), /softmax applied/);
    assert.ok(await page.locator('#warning').isHidden());
    const csv = parseCSV((await download('#export-head-csv')).bytes.toString('utf8'));
    for (let i = 0; i < N; i++) {
      const s = csv.slice(1 + i * N, 1 + (i + 1) * N).reduce((a, r) => a + Number(r[6]), 0);
      assert.ok(Math.abs(s - 1) < 1e-5, `row ${i} sums to ${s}`);
    }
  });

  test('exports: PNG and SVG of each figure, CSV of the head, JSON with the summaries', async () => {
    await dropAndWait(FILES.npz);
    for (const id of ['grid', 'heatmap', 'lines', 'summary', 'rollout', 'flow']) {
      const png = await download(`#figure-${id} button.export-png`);
      assert.equal(png.name, `attnscope-att-${id}.png`);
      assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${id}: a PNG`);
      assert.ok(png.bytes.length > 1000, `${id}: PNG has content`);
      const svg = (await download(`#figure-${id} button.export-svg`)).bytes.toString('utf8');
      assert.match(svg, /^<\?xml[^>]*>\s*<svg/);
      if (id === 'grid') assert.match(svg, /<image[^>]+href="data:image\/png;base64,/);
    }
    await page.selectOption('#pick-layer', '1');
    await page.selectOption('#pick-head', '0');
    const head = await download('#export-head-csv');
    assert.equal(head.name, 'attnscope-att-L2-H1.csv');
    const rows = parseCSV(head.bytes.toString('utf8'));
    assert.equal(rows.length, 1 + N * N);
    for (const [l, hd, i, ti, j, , w] of rows.slice(1)) {
      assert.equal([l, hd].join(), '2,1');
      assert.equal(ti, TOKENS[Number(i)]);
      assert.equal(Math.fround(Number(w)), A[((1 * H + 0) * N + Number(i)) * N + Number(j)], "9 digits read back the float32");
    }
    const json = JSON.parse((await download('#export-json')).bytes.toString('utf8'));
    assert.deepEqual([json.layers, json.heads, json.nq, json.nk], [L, H, N, N]);
    assert.deepEqual(json.tokens, TOKENS);
    const sums = h.scope.headSummaries(A, { layers: L, heads: H, nq: N, nk: N });
    for (let l = 0; l < L; l++) for (let k = 0; k < H; k++) {
      assert.ok(Math.abs(json.summaries.entropy[l][k] - sums.entropy[l * H + k]) < 1e-5);
      assert.ok(Math.abs(json.summaries.max[l][k] - sums.max[l * H + k]) < 1e-5);
    }
    assert.equal(json.rollout.matrix.length, N);
  });

  test('offline: once loaded, the page and a dropped file work with the server gone (the model\'s file is not kept offline)', async () => {
    const server = await startServer();
    const ctx = await h.newContext({}, new URL(server.url).origin);
    try {
      const p = h.watch(await ctx.newPage());
      await p.goto(server.url + 'model.html');
      await p.waitForSelector('body.model-ready', { timeout: 30000 });
      await p.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30000 });
      await server.stop();
      await ctx.setOffline(true);
      await p.reload();
      await p.waitForSelector('body.ready', { timeout: 30000 });
      assert.equal(await dropAndWait(FILES['npz (savez_compressed)'], p), 'packed.npz');
      // The line is written once the page's example (the trained model, from the Cache API) is shown,
      // which may end after the dropped file's drawing.
      await p.waitForFunction(() => /^Available offline/.test(document.getElementById('offline-status').textContent), null,
        { timeout: 30000 });
    } finally {
      await ctx.close();
      await server.stop();
    }
  });

  test('URL round trip: layer, head, window, rollout settings, token and measure', async () => {
    await dropAndWait(FILES.npz);
    await page.selectOption('#pick-layer', '2');
    await page.selectOption('#pick-head', '1');
    await page.fill('#residual', '0.25');
    await page.dispatchEvent('#residual', 'change');
    await page.selectOption('#rollout-head', '0');
    await page.selectOption('#rollout-token', '4');
    await page.selectOption('#summary-measure', 'max');
    const hash = await page.evaluate(() => location.hash);
    assert.equal(hash, '#l=3&h=2&w=1&r=0.25&rh=1&t=5&m=max');
    const other = h.watch(await context.newPage());
    await other.goto(h.server.url + 'model.html' + hash);
    await other.waitForSelector('body.model-ready');
    await dropAndWait(FILES.npz, other);
    assert.equal(await other.inputValue('#pick-layer'), '2');
    assert.equal(await other.inputValue('#pick-head'), '1');
    assert.equal(await other.inputValue('#residual'), '0.25');
    assert.equal(await other.inputValue('#rollout-head'), '0');
    assert.equal(await other.inputValue('#rollout-token'), '4');
    assert.equal(await other.inputValue('#summary-measure'), 'max');
    assert.equal(await other.evaluate(() => location.hash), hash);
    assert.match(await other.textContent('#figure-heatmap .fig-title'), /Layer 3, head 2/);
    // A junk hash is ignored (defaults), never an error.
    const junk = h.watch(await context.newPage());
    await junk.goto(h.server.url + 'model.html#l=abc&h=-1&r=7&rh=<script>&t=99999&m=nope');
    await junk.waitForSelector('body.model-ready');
    assert.equal(await junk.inputValue('#pick-layer'), '0');
    assert.equal(await junk.inputValue('#residual'), '0.5');
    await other.close();
    await junk.close();
    assert.deepEqual(h.log.pageErrors, []);
    assert.deepEqual(h.log.outside, []);
  });
});
