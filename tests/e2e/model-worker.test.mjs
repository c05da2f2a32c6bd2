// The model page's heavy work off its main thread (web/pages/imported-attention/model-worker.js): while a big file is analysed
// the page keeps drawing frames and answering the controls of the view it shows, a progress line
// says how far the worker is, Cancel stops it at once and the previous view stays (and works: its
// rollout comes from the fresh worker); a [1024, 1024, 8, 8] stack (1,048,576 heads) is drawn as a
// block of 64 × 64 heads with a message naming the limit, never as a blank grid. One browser and
// one page for the file. Files are written here (tests/js/attention-files.mjs); screenshots go to
// test-output/.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setup, outDir } from '../../scripts/browser-harness.mjs';
import { npy, npyStrings, zip } from '../js/attention-files.mjs';
import { dropFiles, nextModelLoad } from './model-page.mjs';

let h, context, page;

/**
 * An .npz (deflated, as numpy.savez_compressed) of a [layers, heads, n, n] stack whose rows are one-hot
 * (token i attends to token (i + layer + head) mod n): valid attention that compresses to almost nothing,
 * so a file of 2^26 numbers is a few hundred KB, as the red team's was.
 */
function oneHotNpz(layers, heads, n) {
  const A = new Float32Array(layers * heads * n * n);
  for (let l = 0; l < layers; l++) for (let hd = 0; hd < heads; hd++) {
    const base = (l * heads + hd) * n * n;
    for (let i = 0; i < n; i++) A[base + i * n + ((i + l + hd) % n)] = 1;
  }
  const tokens = Array.from({ length: n }, (_, i) => `t${i}`);
  return zip({ 'attentions.npy': npy(A, [layers, heads, n, n]), 'tokens.npy': npyStrings(tokens) }, { deflate: true });
}

/** Drops one file on the page. */
const drop = (name, bytes) => dropFiles(page, [{ name, bytes }]);
const nextLoad = () => nextModelLoad(page);
const frames = () => page.evaluate(() => window.frameCount);
const title = (id) => page.textContent(`#figure-${id} .fig-title`);

describe('the model page works in its worker', () => {
  before(async () => {
    h = await setup();
    context = await h.newContext();
    page = h.watch(await context.newPage());
    await page.goto(h.server.url + 'model.html');
    await page.waitForSelector('body.model-ready', { timeout: 60000 });
    // A frame counter: requestAnimationFrame runs only when the page's thread is free to draw.
    await page.evaluate(() => {
      window.frameCount = 0;
      const tick = () => { window.frameCount++; requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    });
  });
  after(async () => {
    await context?.close();
    await h?.close();
  });

  test('a [16, 1, 2048, 2048] file: progress, the page keeps answering, Cancel keeps the previous view', async () => {
    const info = await page.textContent('#file-info');
    await page.selectOption('#pick-head', '2');
    await page.waitForFunction(() => document.querySelector('#figure-heatmap .fig-title').textContent.startsWith('Layer 1, head 3'));
    const grid = await page.getAttribute('#figure-grid image', 'href');
    const bytes = oneHotNpz(16, 1, 2048);
    await drop('big.npz', bytes);
    // The progress line shows what the worker does.
    await page.waitForSelector('#busy:not([hidden])', { timeout: 10000 });
    assert.ok(await page.isVisible('#cancel'), 'Cancel is shown');
    await page.waitForFunction(() => /^big\.npz: /.test(document.getElementById('busy-text').textContent), null, { timeout: 10000 });
    // While it works, the page draws frames and its controls answer: a second of frames, and the
    // previous file's layer picker opens another head.
    const f0 = await frames();
    await page.waitForTimeout(1000);
    const f1 = await frames();
    await page.selectOption('#pick-layer', '1', { timeout: 5000 });
    await page.waitForFunction(() => document.querySelector('#figure-heatmap .fig-title').textContent.startsWith('Layer 2, head 3'), null, { timeout: 5000 });
    const progress = await page.textContent('#busy-text');
    assert.ok(await page.isVisible('#busy'), `the analysis still runs while the page is measured (${progress})`);
    assert.ok(f1 - f0 >= 10, `frames drawn in a second of analysis: ${f1 - f0}`);
    await page.screenshot({ path: join(outDir, 'model-worker-progress.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(outDir, 'model-worker-progress-phone.png') });
    await page.setViewportSize({ width: 1320, height: 1000 });
    // Cancel: the worker stops at once, the previous view stays as it was, and the page says so.
    await page.click('#cancel', { timeout: 5000 });
    assert.ok(await page.isHidden('#busy'));
    assert.match(await page.textContent('#notice-text'), /^Cancelled: big\.npz was not loaded\. The previous view stays as it was\./);
    assert.equal(await page.textContent('#file-info'), info);
    assert.match(await title('heatmap'), /^Layer 2, head 3/);
    assert.equal(await page.getAttribute('#figure-grid image', 'href'), grid);
    await page.screenshot({ path: join(outDir, 'model-worker-cancelled.png') });
    // The view keeps working on the fresh worker: a new residual's rollout is computed (the worker
    // reads the shown file again for it).
    await page.fill('#residual', '0.3');
    await page.dispatchEvent('#residual', 'change');
    await page.waitForFunction(() => /^Rollout, r = 0\.3,/.test(document.querySelector('#figure-rollout .fig-title').textContent), null, { timeout: 30000 });
    assert.deepEqual(h.log.pageErrors, []);
  });

  test('a [1024, 1024, 8, 8] file: the grid shows a block of 64 × 64 heads and says so', async () => {
    const loaded = nextLoad();
    await drop('wide.npz', oneHotNpz(1024, 1024, 8));
    assert.equal(await loaded, 'wide.npz');
    assert.match(await page.textContent('#file-info'), /1024 layers × 1024 heads × 8 × 8 tokens/);
    const note = () => page.textContent('#grid-note');
    assert.ok(await page.isVisible('#grid-note'));
    assert.match(await note(), /1,048,576 heads.*at most 64 layers × 64 heads at a time\. Shown: layers 1–64, heads 1–64/);
    const labels = await page.$$eval('#figure-grid .grid-labels text', (ts) => ts.map((t) => t.textContent));
    assert.equal(labels.filter((t) => t.startsWith('H')).length, 64);
    assert.equal(labels.filter((t) => t.startsWith('L')).length, 64);
    assert.deepEqual([labels.includes('H64'), labels.includes('H65'), labels.includes('L64'), labels.includes('L65')], [true, false, true, false]);
    // The image is drawn (not blank): 64 × 64 thumbnails of 16 px and their gaps.
    const img = await page.evaluate(() => {
      const i = document.querySelector('#figure-grid image');
      return { w: Number(i.getAttribute('width')), h: Number(i.getAttribute('height')), href: i.getAttribute('href') };
    });
    assert.deepEqual([img.w, img.h], [64 * 22 - 6, 64 * 22 - 6]);
    assert.match(img.href, /^data:image\/png;base64,.{1000}/);
    assert.equal(await page.locator('#figure-summary g.sum-cell').count(), 64 * 65);
    await page.evaluate(() => document.getElementById('grid-section').scrollIntoView());
    await page.screenshot({ path: join(outDir, 'model-worker-wide.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => document.getElementById('grid-section').scrollIntoView());
    await page.screenshot({ path: join(outDir, 'model-worker-wide-phone.png') });
    await page.setViewportSize({ width: 1320, height: 1000 });
    // Choosing a head far away shows its block.
    await page.selectOption('#pick-layer', '999');
    await page.selectOption('#pick-head', '499');
    await page.waitForFunction(() => /Shown: layers 961–1024, heads 449–512/.test(document.getElementById('grid-note').textContent), null, { timeout: 30000 });
    const moved = await page.$$eval('#figure-grid .grid-labels text', (ts) => ts.map((t) => t.textContent));
    assert.ok(moved.includes('L1000') && moved.includes('H500'), 'the block holding layer 1000, head 500');
    assert.match(await title('heatmap'), /^Layer 1000, head 500/);
    // The arrow keys on the grid cross into the next block.
    await page.selectOption('#pick-head', '511');
    await page.focus('#figure-grid svg');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => /Shown: layers 961–1024, heads 513–576/.test(document.getElementById('grid-note').textContent), null, { timeout: 30000 });
    assert.equal(await page.inputValue('#pick-head'), '512');
    assert.match(await page.textContent('#figure-lines .fig-title'), /layer 1000, heads 513–576 of 1024/);
    assert.deepEqual(h.log.pageErrors, []);
  });
});
