// Long documents in the demo (issue 11): the compute worker, the canvas heatmap with its overview and
// zoomable detail, Cancel, superseded requests, .txt files. No duration is asserted anywhere (the
// machine is shared): speed is bench/page-scale.mjs's business. Screenshots go to test-output/.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, settled, outDir } from '../../scripts/browser-harness.mjs';

let h, context, page;
const WORDS = 'the quick brown fox jumps over a lazy dog while seven small birds sing in the old tree by the river'.split(' ');
/** n tokens of prose (n − 1 words and a full stop). */
const doc = (n, offset = 0) => Array.from({ length: n - 1 }, (_, i) => WORDS[(i + offset) % WORDS.length]).join(' ') + '.';
const range = () => page.textContent('#figure-heatmap-large .hmc-range');
/** Parses the detail's "query rows a–b of n and key columns c–d of m" into numbers. */
async function visible() {
  const m = /query rows (\d+)–(\d+) of (\d+) and key columns (\d+)–(\d+) of (\d+)/.exec(await range());
  assert.ok(m, `range text: ${await range()}`);
  const [i0, i1, nq, j0, j1, nk] = m.slice(1).map(Number);
  return { i0, i1, nq, j0, j1, nk, labelled: /labelled/.test(await range()) };
}
/** Waits until the canvas heatmap has coloured every row of the current matrix. */
const coloured = () => page.waitForFunction(() => {
  const el = document.querySelector('#figure-heatmap-large .hmc-range');
  return el && /Detail shows/.test(el.textContent) && !/Colouring/.test(el.textContent);
}, null, { timeout: 30000 });
const shot = (name, p = page) => p.screenshot({ path: join(outDir, `${name}.png`) });

async function paste(q, k = '') {
  await page.fill('#keys', k);
  await page.fill('#query', q);
  await settled(page, 60000);
}

before(async () => {
  h = await setup();
  context = await h.newContext({ viewport: { width: 1440, height: 900 } });
  page = await h.open(context);
});
after(async () => { if (h) await h.close(); });

describe('long documents', () => {
  test('a 2,000-token paste draws the whole matrix in the overview and the detail', async () => {
    const r = h.scope.attend({ query: doc(2000), score: 'cosine', temperature: 0.1, maxTokens: 2000 });
    assert.equal(r.nq, 2000);
    await paste(doc(2000));
    await coloured();
    assert.equal(await page.isVisible('#fig-heatmap-large'), true);
    assert.equal(await page.isVisible('#fig-heatmap'), false);
    assert.deepEqual(await visible(), { i0: 1, i1: 2000, nq: 2000, j0: 1, j1: 2000, nk: 2000, labelled: false });
    // Both canvases hold a picture: the overview's pixels are the matrix's colours, not the background.
    const distinct = await page.evaluate(() => {
      const c = document.querySelector('#figure-heatmap-large canvas.hmc-overview');
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const set = new Set();
      for (let k = 0; k < px.length; k += 4 * 97) set.add((px[k] << 16) | (px[k + 1] << 8) | px[k + 2]);
      return set.size;
    });
    assert.ok(distinct > 10, `${distinct} colours in the overview`);
    // The token strip shows the first tokens and says how many there are; no cut notice.
    assert.match(await page.textContent('#query-tokens .chip-count'), /2000 tokens/);
    assert.doesNotMatch(await page.textContent('#notice-text'), /cut at/);
    // The line view draws only the selected token's strongest links, and says so.
    await page.locator('#figure-lines').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => /strongest links/.test(document.querySelector('#figure-lines .fig-caption').textContent));
    const lines = await page.locator('#figure-lines g.lines line').count();
    assert.ok(lines > 0 && lines <= 8 * 8, `${lines} lines drawn`);
    await page.locator('#fig-heatmap-large').scrollIntoViewIfNeeded();
    await shot('scale-01-2000-tokens-1440');
  });

  test('zoom and pan change the visible range; labels appear once they fit', async () => {
    const before = await visible();
    const canvas = page.locator('#figure-heatmap-large canvas.hmc-detail');
    await canvas.focus();
    // Keyboard: + zooms in (the range shrinks), arrows pan (the range moves), 0 shows everything.
    for (let k = 0; k < 6; k++) await page.keyboard.press('+');
    await page.waitForTimeout(100);
    const zoomed = await visible();
    assert.ok(zoomed.i1 - zoomed.i0 < before.i1 - before.i0, `zoomed rows ${zoomed.i0}–${zoomed.i1}`);
    for (let k = 0; k < 5; k++) await page.keyboard.press('ArrowRight');
    for (let k = 0; k < 5; k++) await page.keyboard.press('ArrowDown');
    await page.waitForTimeout(100);
    const panned = await visible();
    assert.ok(panned.j0 > zoomed.j0 && panned.i0 > zoomed.i0, `panned to rows ${panned.i0}, columns ${panned.j0}`);
    // Zoomed in far enough, the visible rows are labelled with their tokens.
    for (let k = 0; k < 6; k++) await page.keyboard.press('+');
    await page.waitForTimeout(100);
    const close = await visible();
    assert.equal(close.labelled, true, await range());
    assert.ok(close.i1 - close.i0 < 60, `${close.i1 - close.i0} rows when labelled`);
    await shot('scale-02-zoomed-labels');
    // The wheel zooms out, a drag pans.
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 400);
    await page.waitForTimeout(500);   // past d3-zoom's wheel gesture (150 ms)
    const wheeled = await visible();
    assert.ok(wheeled.i1 - wheeled.i0 > close.i1 - close.i0, `wheel out: ${wheeled.i1 - wheeled.i0} rows`);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 150, box.y + box.height / 2 - 120, { steps: 6 });
    await page.mouse.up();
    await page.waitForTimeout(150);
    const dragged = await visible();
    assert.ok(dragged.j0 > wheeled.j0 && dragged.i0 > wheeled.i0, `drag: rows ${wheeled.i0}→${dragged.i0}, columns ${wheeled.j0}→${dragged.j0}`);
    // Clicking a cell of the detail opens it ("Why this weight?") at that row and column.
    await page.mouse.click(box.x + box.width - 40, box.y + box.height - 40);
    await settled(page);
    // The URL is written 150 ms after the last change.
    await page.waitForFunction(() => /cell=\d+,\d+/.test(decodeURIComponent(location.hash)), null, { timeout: 5000 }).catch(() => {});
    assert.match(decodeURIComponent(await page.evaluate(() => location.hash)), /cell=\d+,\d+/);
    const [ci, cj] = /cell=(\d+),(\d+)/.exec(decodeURIComponent(await page.evaluate(() => location.hash))).slice(1).map(Number);
    const after = await visible();
    assert.ok(ci >= after.i0 - 1 && ci < after.i1 && cj >= after.j0 - 1 && cj < after.j1, `cell ${ci},${cj} in the visible range ${JSON.stringify(after)} (before the click: ${JSON.stringify(dragged)})`);
    // 0 shows the whole matrix again.
    await canvas.focus();
    await page.keyboard.press('0');
    await page.waitForTimeout(100);
    assert.deepEqual((({ i0, i1, j0, j1 }) => ({ i0, i1, j0, j1 }))(await visible()), { i0: 1, i1: 2000, j0: 1, j1: 2000 });
  });

  test('the canvas heatmap exports as PNG and as SVG with the pictures embedded', async () => {
    for (const format of ['png', 'svg']) {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#figure-heatmap-large button.export-${format}`)]);
      const bytes = readFileSync(await dl.path());
      if (format === 'png') assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
      else {
        const text = bytes.toString('utf8');
        assert.match(text, /<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
        assert.equal((text.match(/<image[^>]*href="data:image\/png;base64,/g) || []).length, 2);
      }
      assert.ok(bytes.length > 2000);
    }
  });

  test('a light/dark switch recolours the masked cells of the canvas heatmap', async () => {
    // Masked cells are transparent in the canvas's picture, over the theme's masked colour filled at
    // each frame: a theme switch redraws the frame and never colours the matrix again.
    await paste(doc(300, 7));
    await page.selectOption('#mask', 'causal');
    await settled(page, 60000);
    await coloured();
    const ov = page.locator('#figure-heatmap-large canvas.hmc-overview');
    await ov.scrollIntoViewIfNeeded();
    for (const scheme of ['dark', 'light']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const theme = await page.evaluate(() => getComputedStyle(document.getElementById('figure-heatmap-large')).getPropertyValue('--masked').trim());
      const want = [1, 3, 5].map((k) => parseInt(theme.slice(k, k + 2), 16));
      const box = await ov.boundingBox();
      // Row ~15, column ~270 of 300: masked (j > i), away from the outline of the detail's range.
      const png = await page.screenshot({ clip: { x: Math.floor(box.x + 0.9 * box.width), y: Math.floor(box.y + 0.05 * box.height), width: 1, height: 1 } });
      const got = await page.evaluate(async (url) => {
        const im = new Image();
        im.src = url;
        await im.decode();
        const c = document.createElement('canvas');
        c.width = 1; c.height = 1;
        const g = c.getContext('2d');
        g.drawImage(im, 0, 0);
        return Array.from(g.getImageData(0, 0, 1, 1).data.slice(0, 3));
      }, `data:image/png;base64,${png.toString('base64')}`);
      assert.ok(got.every((v, k) => Math.abs(v - want[k]) <= 3), `${scheme}: a masked cell shows as ${got}, the theme's masked colour is ${want}`);
    }
    await page.selectOption('#mask', 'none');
    await settled(page, 60000);
  });
});

/** Opens the "More" settings (projection, seed, positions, kernels), where they are folded away. */
async function openMore() {
  if (!(await page.locator('#more-settings').evaluate((d) => d.open))) await page.click('#more-settings > summary');
}

describe('computing off the main thread', () => {
  test('Cancel stops a long computation and leaves the previous picture', async () => {
    await paste(doc(20));
    const cellsBefore = await page.locator('#figure-heatmap svg.heatmap g.cells rect').count();
    assert.equal(cellsBefore, 400);
    // Two heads of a random projection over 2,000 × 2,000 tokens: long enough for Cancel to show.
    await page.selectOption('#heads', '2');
    await openMore();   // the projection is under "More"
    await page.selectOption('#projection', 'random');
    await settled(page);
    await page.fill('#query', doc(2000, 3));
    await page.waitForSelector('#compute-progress:not([hidden])', { timeout: 10000 });
    assert.match(await page.textContent('#compute-text'), /Computing/);
    await page.click('#compute-cancel');
    await page.waitForTimeout(1500);
    assert.equal(await page.isVisible('#compute-progress'), false);
    assert.match(await page.textContent('#notice-text'), /cancelled/);
    // The previous picture: the 20-token SVG heatmap (2 heads now), not the 2,000-token one.
    assert.equal(await page.isVisible('#fig-heatmap'), true);
    assert.equal(await page.isVisible('#fig-heatmap-large'), false);
    assert.equal(await page.locator('#figure-heatmap .row-labels text').count(), 20);
    await shot('scale-03-cancelled');
    // The worker computes the next change (kept: its pooled call was aborted).
    await paste(doc(12));
    assert.equal(await page.locator('#figure-heatmap svg.heatmap g.cells rect').count(), 144);
    await page.selectOption('#heads', '1');
    await page.selectOption('#projection', 'identity');
    await settled(page);
  });

  test('a superseded request never paints over a newer one', async () => {
    // A long document, then at once a short sentence: the long one's answer must not win.
    await page.fill('#keys', '');
    await page.fill('#query', doc(2000, 5));
    await page.waitForTimeout(30);
    await page.fill('#query', 'The cat sat on the mat.');
    await settled(page, 60000);
    await page.waitForTimeout(2500);   // any late answer would have landed by now
    assert.equal(await page.isVisible('#fig-heatmap'), true);
    assert.deepEqual(await page.locator('#figure-heatmap .row-labels text').allTextContents(), ['The', 'cat', 'sat', 'on', 'the', 'mat', '.']);
    // Many keystrokes in a row: the last text is what is drawn.
    await page.fill('#query', '');
    await page.focus('#query');
    await page.keyboard.type('one two three four five six', { delay: 5 });
    await settled(page);
    await page.waitForTimeout(300);
    assert.deepEqual(await page.locator('#figure-heatmap .row-labels text').allTextContents(), ['one', 'two', 'three', 'four', 'five', 'six']);
  });
});

describe('.txt files', () => {
  test('the file picker loads a .txt file into the query, as text', async () => {
    const text = 'A file <b>with</b> markup <img src=x onerror=alert(1)> stays text.';
    await page.setInputFiles('#file-query', { name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from(text) });
    await settled(page);
    assert.equal(await page.inputValue('#query'), text);
    assert.equal(await page.locator('main img, main b').count(), 0);
    assert.deepEqual(h.log.dialogs, []);
    const r = h.scope.attend({ query: text, maxTokens: 2000 });
    assert.equal(await page.locator('#figure-heatmap .row-labels text').count(), r.nq);
  });

  test('a .txt file dropped on the key box becomes the keys; dropped elsewhere, the query', async () => {
    const drop = (selector, name, text, type = 'text/plain') => page.evaluate(([sel, n, t, ty]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], n, { type: ty }));
      const target = document.querySelector(sel);
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, [selector, name, text, type]);
    await drop('#keys', 'keys.txt', 'A kitten rested on the rug.');
    await settled(page);
    assert.equal(await page.inputValue('#keys'), 'A kitten rested on the rug.');
    await drop('#views', 'query.txt', 'The cat sat on the mat.');
    await settled(page);
    assert.equal(await page.inputValue('#query'), 'The cat sat on the mat.');
    assert.equal(await page.locator('#figure-heatmap svg.heatmap g.cells rect').count(), 7 * 7);
    // Too large, or not text: a clear notice, and the texts stay as they were.
    await drop('#views', 'big.txt', 'word '.repeat(30000));
    await settled(page);
    assert.match(await page.textContent('#notice-text'), /big\.txt” was not loaded: it (is \d+(\.\d)? MB|has [\d,]+ characters); the page takes up to/);
    await drop('#views', 'picture.png', 'PNG', 'image/png');
    await settled(page);
    assert.match(await page.textContent('#notice-text'), /only plain-text \.txt files/);
    assert.equal(await page.inputValue('#query'), 'The cat sat on the mat.');
  });
});

describe('small screens', () => {
  test('a 2,000-token document on a 390 × 844 phone: overview and detail fit the width', async () => {
    const phone = await h.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const p = await h.open(phone, '#q=' + encodeURIComponent(doc(2000)));
    await settled(p, 60000);
    await p.waitForFunction(() => !/Colouring/.test(document.querySelector('#figure-heatmap-large .hmc-range').textContent));
    const widths = await p.evaluate(() => [...document.querySelectorAll('#figure-heatmap-large canvas')].map((c) => c.getBoundingClientRect().right));
    const vw = await p.evaluate(() => document.documentElement.clientWidth);
    for (const right of widths) assert.ok(right <= vw + 1, `canvas right edge ${right} within ${vw}`);
    await p.locator('#fig-heatmap-large').scrollIntoViewIfNeeded();
    await shot('scale-04-2000-tokens-phone', p);
    await phone.close();
  });

  test('no console error, no page error, no dialog', () => {
    assert.deepEqual(h.log.pageErrors, []);
    assert.deepEqual(h.log.consoleErrors, []);
    assert.deepEqual(h.log.dialogs, []);
  });
});
