// A long query against a short key sentence (2,000 tokens × 7, and the transpose 7 × 2,000; and 2,000 × 100) in the demo:
// the canvas heatmap's cells are readable on both axes, in the detail and in the overview, at desktop
// and phone widths; the short axis is labelled; zoom and a click act on the long axis; a 2,000-token
// paste keeps the token strips' DOM bounded. The geometry is read from what the figure exposes (the
// detail's data-* attributes) and checked against the canvases themselves (their sizes, and ink in
// the label margins). No duration is asserted (bench/paste.mjs measures the paste's tasks).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setup, settled, outDir } from '../../scripts/browser-harness.mjs';

const WORDS = 'the quick brown fox jumps over a lazy dog while seven small birds sing in the old tree by the river'.split(' ');
/** n tokens of prose (n − 1 words and a full stop). */
const doc = (n) => Array.from({ length: n - 1 }, (_, i) => WORDS[i % WORDS.length]).join(' ') + '.';
const SHORT = 'A kitten rested on the rug.';
const SHORT_TOKENS = ['A', 'kitten', 'rested', 'on', 'the', 'rug', '.'];
const MARGIN = 84;          // web/shared/figures/HeatmapCanvas.js: the label margins
const LABEL_MIN = 11;       // px a row or column needs before its label is drawn
const MIN_CELL = 4;         // px: the least a cell is drawn on either axis of the detail
const OV_SHORT_CELL = 6;    // px: the least a cell of the overview's short axis is

let h;
before(async () => { h = await setup(); });
after(async () => { if (h) await h.close(); });

const range = (page) => page.textContent('#figure-heatmap-large .hmc-range');
async function visible(page) {
  const text = await range(page);
  const m = /query rows (\d+)–(\d+) of (\d+) and key columns (\d+)–(\d+) of (\d+)/.exec(text);
  assert.ok(m, `range text: ${text}`);
  const [i0, i1, nq, j0, j1, nk] = m.slice(1).map(Number);
  return { i0, i1, nq, j0, j1, nk, text };
}
const coloured = (page) => page.waitForFunction(() => {
  const el = document.querySelector('#figure-heatmap-large .hmc-range');
  return el && /Detail shows/.test(el.textContent) && !/Colouring/.test(el.textContent);
}, null, { timeout: 60000 });

/** The detail's and the overview's geometry: what the figure says, and the canvases' own sizes. */
const geometry = (page) => page.evaluate(() => {
  const d = document.querySelector('#figure-heatmap-large canvas.hmc-detail');
  const o = document.querySelector('#figure-heatmap-large canvas.hmc-overview');
  const db = d.getBoundingClientRect(), ob = o.getBoundingClientRect();
  return {
    mode: d.dataset.mode, cw: Number(d.dataset.cellWidth), ch: Number(d.dataset.cellHeight),
    detail: { w: db.width, h: db.height }, overview: { w: ob.width, h: ob.height },
  };
});

/**
 * Ink (pixels unlike the background) in the label margins of the detail, per column (`axis` 'cols':
 * just above each column, where its rotated label starts) or per row ('rows': left of each row's
 * height from the matrix's top edge), for the first `n` columns or rows.
 */
const labelInk = (page, axis, n, cw, ch) => page.evaluate(({ axis, n, cw, ch, MARGIN }) => {
  const c = document.querySelector('#figure-heatmap-large canvas.hmc-detail');
  const k = c.width / c.getBoundingClientRect().width;
  const ctx = c.getContext('2d');
  const px = ctx.getImageData(0, 0, c.width, c.height).data;
  const at = (x, y) => { const o = (Math.round(y * k) * c.width + Math.round(x * k)) * 4; return [px[o], px[o + 1], px[o + 2]]; };
  const bg = at(1, c.height / k - 2);
  const ink = (x0, x1, y0, y1) => {
    let count = 0;
    for (let y = y0; y < y1; y += 0.5) for (let x = x0; x < x1; x += 0.5) {
      const p = at(x, y);
      if (Math.abs(p[0] - bg[0]) + Math.abs(p[1] - bg[1]) + Math.abs(p[2] - bg[2]) > 120) count++;
    }
    return count;
  };
  const out = [];
  for (let t = 0; t < n; t++) {
    if (axis === 'cols') { const cx = MARGIN + t * cw + cw / 2; out.push(ink(cx - 1, cx + 7, MARGIN - 16, MARGIN - 3)); }
    else out.push(ink(MARGIN - 40, MARGIN - 3, MARGIN + t * ch, MARGIN + (t + 1) * ch));   // the t-th row's height, wherever the rows start
  }
  return out;
}, { axis, n, cw, ch, MARGIN });

async function paste(page, q, k) {
  await page.fill('#keys', k);
  await page.fill('#query', q);
  await settled(page, 60000);
  await coloured(page);
}

for (const [width, height] of [[1440, 900], [390, 844]]) {
  describe(`a long × short matrix at ${width} px`, () => {
    let context, page;
    before(async () => {
      context = await h.newContext({ viewport: { width, height }, ...(width < 600 ? { deviceScaleFactor: 2, isMobile: true, hasTouch: true } : {}) });
      page = await h.open(context);
    });
    after(async () => { await context?.close(); });

    test('2,000 query tokens × 7 keys: the 7 columns fill the detail, labelled; rows of at least 4 px, windowed', async () => {
      await paste(page, doc(2000), SHORT);
      const v = await visible(page);
      assert.equal(v.nq, 2000);
      assert.equal(v.nk, 7);
      assert.deepEqual([v.j0, v.j1], [1, 7], 'every key column is in the detail');
      assert.ok(v.i1 < 2000, `a window of the rows: ${v.i0}–${v.i1}`);
      assert.match(v.text, /key columns labelled/);
      const g = await geometry(page);
      assert.equal(g.mode, 'rows');
      assert.ok(g.cw >= LABEL_MIN, `column width ${g.cw} px`);
      assert.ok(g.ch >= MIN_CELL, `row height ${g.ch} px`);
      // The canvas holds them: the 7 columns within its width, the visible rows within its height.
      assert.ok(g.detail.w >= MARGIN + 7 * g.cw - 1, JSON.stringify(g));
      assert.ok((v.i1 - v.i0 + 1) * g.ch >= g.detail.h - MARGIN - g.ch, JSON.stringify({ v, g }));
      // The overview: every column at least OV_SHORT_CELL px wide (not a 1-pixel sliver).
      assert.ok(g.overview.w / 7 >= OV_SHORT_CELL - 0.5, `overview ${g.overview.w} × ${g.overview.h}`);
      assert.ok(g.overview.h >= 150, `overview ${g.overview.w} × ${g.overview.h}`);
      // The short axis's labels are drawn: ink just above each of the 7 columns.
      const ink = await labelInk(page, 'cols', 7, g.cw, g.ch);
      assert.ok(ink.every((x) => x > 2), `label ink above each column: ${ink}`);

      // Zooming acts on the rows only: taller rows (labelled once they fit), the columns unchanged.
      const canvas = page.locator('#figure-heatmap-large canvas.hmc-detail');
      await canvas.focus();
      for (let k = 0; k < 4; k++) await page.keyboard.press('+');
      await page.waitForTimeout(100);
      const z = await geometry(page);
      assert.equal(z.cw, g.cw);
      assert.ok(z.ch >= LABEL_MIN, `zoomed row height ${z.ch}`);
      const zv = await visible(page);
      assert.deepEqual([zv.j0, zv.j1], [1, 7]);
      assert.ok(zv.i1 - zv.i0 < v.i1 - v.i0, 'fewer rows when zoomed in');
      assert.match(zv.text, /labelled\)/);
      const rowsInk = await labelInk(page, 'rows', 3, z.cw, z.ch);
      assert.ok(rowsInk.every((x) => x > 2), `row labels: ${rowsInk}`);
      // The arrows move down the rows.
      for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowDown');
      await page.waitForTimeout(100);
      assert.ok((await visible(page)).i0 > zv.i0);
      await page.locator('#fig-heatmap-large').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(outDir, `long-short-2000x7-${width}.png`) });
      // 0: back to the start.
      await page.keyboard.press('0');
      await page.waitForTimeout(100);
      assert.deepEqual((({ i0, j0, j1 }) => [i0, j0, j1])(await visible(page)), [1, 1, 7]);
      // The keyboard reaches every cell: across the 7 columns (which cannot pan) the arrows move the
      // outlined cell, End and Home go to the row's last and first column, and at the top of the
      // matrix the up arrow moves it on to row 1; Enter explains that cell.
      const cellShown = async () => {
        const m = /^row (\d+) .* column (\d+) /.exec(await page.textContent('#figure-heatmap-large .hmc-readout'));
        assert.ok(m, 'the readout names the keyboard cell');
        return [Number(m[1]), Number(m[2])];
      };
      await page.keyboard.press('ArrowRight');
      const start = await cellShown();
      const cols = [start[1]];
      for (let k = 0; k < 7; k++) { await page.keyboard.press('ArrowRight'); cols.push((await cellShown())[1]); }
      assert.ok(cols.at(-1) === 7 && cols.every((c, k) => k === 0 || c === Math.min(7, cols[k - 1] + 1)), `columns: ${cols}`);
      await page.keyboard.press('Home');
      assert.equal((await cellShown())[1], 1);
      await page.keyboard.press('End');
      assert.equal((await cellShown())[1], 7);
      // Heard too: the range's live region says the keyboard's cell (visually hidden: the readout shows it).
      assert.match(await page.textContent('#figure-heatmap-large .hmc-range .visually-hidden'), /^ Outlined: row \d+ .* column 7 “\.”: weight /);
      await page.keyboard.press('Home');
      for (let k = 0; k < 400 && (await cellShown())[0] > 1; k++) await page.keyboard.press('ArrowUp');
      assert.deepEqual(await cellShown(), [1, 1]);
      assert.equal((await visible(page)).i0, 1, 'the view stayed at the top');
      await page.keyboard.press('ArrowDown');
      assert.deepEqual(await cellShown(), [2, 1], 'down again: one row back towards the centre');
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'figure-why-title', null, { timeout: 10000 });
      assert.match(await page.textContent('#figure-why .why-intro'), /\(row 1\) gives .* \(column 1\)/);
      await page.keyboard.press('Escape');
      await page.keyboard.press('0');

      // A click on a cell opens that cell: the middle of column 5 ("the"), the first row.
      const box = await canvas.boundingBox();
      const hashBefore = await page.evaluate(() => location.hash);   // holds the cell Enter explained above
      await page.mouse.click(box.x + MARGIN + 4.5 * g.cw, box.y + MARGIN + g.ch / 2);
      await settled(page);
      await page.waitForFunction((old) => location.hash !== old && /cell=\d+,\d+/.test(decodeURIComponent(location.hash)), hashBefore, { timeout: 5000 });
      const [, ci, cj] = /cell=(\d+),(\d+)/.exec(decodeURIComponent(await page.evaluate(() => location.hash))).map(Number);
      assert.deepEqual([ci, cj], [0, 4], 'the URL holds the clicked cell (0-based: row 1, column 5)');
    });

    test('7 query tokens × 2,000 keys: the 7 rows fill the detail, labelled; columns of at least 4 px, windowed', async () => {
      await paste(page, SHORT, doc(2000));
      const v = await visible(page);
      assert.deepEqual([v.nq, v.nk], [7, 2000]);
      assert.deepEqual([v.i0, v.i1], [1, 7]);
      assert.ok(v.j1 < 2000);
      assert.match(v.text, /query rows labelled/);
      const g = await geometry(page);
      assert.equal(g.mode, 'cols');
      assert.ok(g.ch >= LABEL_MIN, `row height ${g.ch} px`);
      assert.ok(g.cw >= MIN_CELL, `column width ${g.cw} px`);
      assert.ok(g.detail.h >= MARGIN + 7 * g.ch - 1, JSON.stringify(g));
      assert.ok(g.overview.h / 7 >= OV_SHORT_CELL - 0.5, `overview ${g.overview.w} × ${g.overview.h}`);
      const ink = await labelInk(page, 'rows', 7, g.cw, g.ch);
      assert.ok(ink.every((x) => x > 2), `label ink left of each row: ${ink}`);
      assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('#query-tokens .chip')].map((c) => c.firstChild.textContent)), SHORT_TOKENS);
      // Zoom and pan act on the columns only: + widens them (labelled once they fit), the rows stay;
      // the arrows move along the columns; a drag to the left too.
      const canvas = page.locator('#figure-heatmap-large canvas.hmc-detail');
      await canvas.focus();
      for (let k = 0; k < 4; k++) await page.keyboard.press('+');
      await page.waitForTimeout(100);
      const z = await geometry(page);
      assert.equal(z.ch, g.ch);
      assert.ok(z.cw >= LABEL_MIN, `zoomed column width ${z.cw}`);
      const zv = await visible(page);
      assert.deepEqual([zv.i0, zv.i1], [1, 7]);
      assert.match(zv.text, /labelled\)/);
      for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowRight');
      await page.waitForTimeout(100);
      const moved = await visible(page);
      assert.ok(moved.j0 > zv.j0, `arrows: columns ${zv.j0} → ${moved.j0}`);
      assert.deepEqual([moved.i0, moved.i1], [1, 7]);
      const box = await canvas.boundingBox();
      await page.mouse.move(box.x + box.width - 20, box.y + MARGIN + 10);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width - 220, box.y + MARGIN + 10, { steps: 6 });
      await page.mouse.up();
      await page.waitForTimeout(150);
      assert.ok((await visible(page)).j0 > moved.j0, 'a drag to the left moves along the columns');
      await page.keyboard.press('0');
      await page.waitForTimeout(100);
      await page.locator('#fig-heatmap-large').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(outDir, `long-short-7x2000-${width}.png`) });
    });

    test('2,000 query tokens × 100 keys: square cells that fill the width, a window of the rows (not a strip a few pixels wide)', async () => {
      await paste(page, doc(2000), doc(100));
      const v = await visible(page);
      assert.deepEqual([v.nq, v.nk], [2000, 100]);
      assert.deepEqual([v.j0, v.j1], [1, 100], 'every key column is in the detail');
      assert.ok(v.i1 < 2000, `a window of the rows: ${v.i0}–${v.i1}`);
      const g = await geometry(page);
      assert.equal(g.mode, 'square');
      assert.equal(g.cw, g.ch);
      assert.ok(g.cw * 100 >= g.detail.w - MARGIN - 2, `100 columns of ${g.cw} px fill the ${g.detail.w - MARGIN} px matrix area`);
      // Zooming in makes both axes' cells larger (and labels them once they fit).
      const canvas = page.locator('#figure-heatmap-large canvas.hmc-detail');
      await canvas.focus();
      for (let k = 0; k < 5; k++) await page.keyboard.press('+');
      await page.waitForTimeout(100);
      const z = await geometry(page);
      assert.ok(z.cw === z.ch && z.cw >= LABEL_MIN, `zoomed cells ${z.cw} × ${z.ch}`);
      assert.match((await visible(page)).text, /labelled\)/);
      await page.keyboard.press('0');
      await page.locator('#fig-heatmap-large').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(outDir, `long-short-2000x100-${width}.png`) });
    });

    test('a 2,000-token paste keeps the token strips\' DOM bounded', async () => {
      await paste(page, doc(2000), doc(2000));
      const nodes = await page.evaluate(() => ['#query-tokens', '#key-tokens'].map((s) => document.querySelector(s).querySelectorAll('*').length));
      for (const n of nodes) assert.ok(n > 0 && n <= 400, `${n} elements in a strip of 2,000 tokens`);
      assert.match(await page.textContent('#query-tokens .chip-count'), /2,?000 tokens/);
    });
  });
}

test('no console error, no page error', () => {
  assert.deepEqual(h.log.consoleErrors, []);
  assert.deepEqual(h.log.pageErrors, []);
});
