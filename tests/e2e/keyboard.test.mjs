// The heatmap from the keyboard, in headless Chromium: it is one tab stop with grid semantics (rows of
// grid cells named by their values, the cursor's cell its aria-activedescendant); Enter on a cell (or a
// click) opens "Why this weight?" for it, scrolls the panel into view and moves the focus to its heading,
// which a screen reader reads with the explanation's first sentence; Escape there, or "Back to the
// heatmap", brings the focus back to the heatmap on the same cell. The same in the demo and in the
// <attn-scope view="why"> element.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { offlineContext, setup, autoSettle, root, gridCursor } from '../../scripts/browser-harness.mjs';

let h, context, fileContext, tmp;
before(async () => {
  h = await setup();
  context = await h.newContext();
  // The element's page comes from disk: its own context, where no request may leave the machine.
  fileContext = await offlineContext(h.browser, { viewport: { width: 1280, height: 900 } });
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-keys-'));
});
after(async () => {
  await context?.close();
  await fileContext?.close();
  await h?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Where the focus is, looking into shadow roots: { tag, cls, id, text } of the deepest active element. */
const focused = (p) => p.evaluate(() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a ? { tag: a.localName, cls: a.getAttribute('class') || '', id: a.id, text: a.textContent.trim().slice(0, 80) } : null;
});
/** Whether element `sel` (in `host`'s shadow root when given) is at least partly inside the viewport. */
const inView = (p, sel, host = null) => p.evaluate(([s, hs]) => {
  const scope = hs ? document.querySelector(hs).shadowRoot : document;
  const b = scope.querySelector(s).getBoundingClientRect();
  return b.bottom > 0 && b.top < innerHeight && b.height > 0;
}, [sel, host]);

describe('keyboard: the heatmap as a grid, and "Why this weight?"', () => {
  test('demo: grid semantics; Enter explains the cell, scrolled into view and focused; Escape and "Back" return to the cell', async () => {
    const p = autoSettle(await h.open(context, '#q=The%20cat%20sat%20on%20the%20mat.&k=A%20kitten%20rested%20on%20the%20rug.'));
    try {
      const grid = await p.$eval('#figure-heatmap svg.heatmap', (svg) => ({
        role: svg.getAttribute('role'), rows: Number(svg.getAttribute('aria-rowcount')), cols: Number(svg.getAttribute('aria-colcount')),
        headers: [...svg.querySelectorAll('[role=columnheader]')].map((e) => e.textContent),
        rowHeads: [...svg.querySelectorAll('[role=row] [role=rowheader]')].map((e) => e.textContent),
        cells: svg.querySelectorAll('[role=row] [role=gridcell]').length,
        tabStops: [svg, ...svg.querySelectorAll('*')].filter((e) => e.tabIndex >= 0).length,
      }));
      assert.equal(grid.role, 'grid');
      assert.deepEqual(grid.headers, ['A', 'kitten', 'rested', 'on', 'the', 'rug', '.']);
      assert.deepEqual(grid.rowHeads, ['The', 'cat', 'sat', 'on', 'the', 'mat', '.']);
      assert.equal(grid.rows, 1 + 7);
      assert.equal(grid.cols, 1 + 7);
      assert.equal(grid.cells, 7 * 7, 'a short matrix is in the DOM whole');
      assert.equal(grid.tabStops, 1, 'one tab stop: the arrows move inside');

      await p.focus('#figure-heatmap svg.heatmap');
      await p.keyboard.press('ArrowDown');
      await p.keyboard.press('ArrowRight');
      // The cursor's cell is the grid's active descendant, named by its weight.
      const active = await p.$eval('#figure-heatmap svg.heatmap', (svg) => {
        const cell = svg.querySelector(`[id="${svg.getAttribute('aria-activedescendant')}"]`);
        return { label: cell.getAttribute('aria-label'), col: cell.getAttribute('aria-colindex'), row: cell.parentNode.getAttribute('aria-rowindex') };
      });
      assert.match(active.label, /^weight \S+ · score \S+$/);
      // One source per announcement: the move is read from the focus (the active cell above), so the
      // live region says nothing of it (a screen reader would read the move twice).
      assert.equal(await p.textContent('#figure-heatmap-live'), '', 'a move is not announced again by the live region');
      assert.equal(await p.getAttribute('#figure-heatmap svg.heatmap', 'aria-describedby'), null, 'the readout is no description of the grid either');
      assert.deepEqual([active.row, active.col], ['3', '3'], 'row 2 and column 2 of the matrix (after the header row and column)');

      await p.keyboard.press('Enter');
      await p.waitForFunction(() => /‘cat’ \(row 2\) gives ‘kitten’ \(column 2\)/.test(document.querySelector('#figure-why .why-intro').textContent));
      await p.waitForFunction(() => document.activeElement && document.activeElement.id === 'figure-why-title');
      assert.equal(await inView(p, '#figure-why-title'), true, 'the panel was scrolled into view');
      assert.equal(await p.getAttribute('#figure-why-title', 'aria-describedby'), 'figure-why-intro', 'its heading is read with the explanation');
      assert.equal(await p.isVisible('#figure-why .why-back'), true);

      await p.keyboard.press('Escape');
      assert.equal((await focused(p)).cls, 'heatmap selectable');
      assert.equal(await inView(p, '#figure-heatmap svg.heatmap'), true);
      assert.match(await gridCursor(p.locator('#figure-heatmap svg.heatmap')), /^Row 2, cat; column 2, kitten: weight/, 'back on the same cell');
      assert.equal(await p.getAttribute('#figure-heatmap rect.cursor', 'visibility'), 'visible');

      // On to another cell, Enter again, then the "Back to the heatmap" button.
      await p.keyboard.press('ArrowRight');
      await p.keyboard.press('Enter');
      await p.waitForFunction(() => /‘cat’ \(row 2\) gives ‘rested’ \(column 3\)/.test(document.querySelector('#figure-why .why-intro').textContent));
      await p.waitForFunction(() => document.activeElement && document.activeElement.id === 'figure-why-title');
      await p.keyboard.press('Tab');
      assert.equal((await focused(p)).cls, 'linkish why-back');
      await p.keyboard.press('Enter');
      assert.equal((await focused(p)).cls, 'heatmap selectable');
      assert.match(await gridCursor(p.locator('#figure-heatmap svg.heatmap')), /^Row 2, cat; column 3, rested: weight/);

      // A click on a cell opens it the same way.
      await p.locator('#figure-heatmap svg.heatmap g.cells rect').nth(3 * 7 + 1).click();
      await p.waitForFunction(() => /‘on’ \(row 4\) gives ‘kitten’ \(column 2\)/.test(document.querySelector('#figure-why .why-intro').textContent));
      await p.waitForFunction(() => document.activeElement && document.activeElement.id === 'figure-why-title');
      assert.equal(await inView(p, '#figure-why-title'), true);
      await p.keyboard.press('Escape');
      assert.match(await gridCursor(p.locator('#figure-heatmap svg.heatmap')), /^Row 4, on; column 2, kitten: weight/);
    } finally {
      await p.close();
    }
  });

  test('the line view\'s words are one tab stop; the arrows move between them and each shows its lines', async () => {
    const p = autoSettle(await h.open(context, '#q=The%20cat%20sat%20on%20the%20mat.&k=A%20kitten%20rested%20on%20the%20rug.'));
    try {
      const stops = () => p.$$eval('#figure-lines g.tok', (ts) => ts.filter((t) => t.tabIndex >= 0).map((t) => t.getAttribute('aria-label')));
      assert.deepEqual(await stops(), ['query 1: The']);
      await p.focus('#figure-lines g.tok[tabindex="0"]');
      const at = async () => (await p.evaluate(() => document.activeElement.getAttribute('aria-label')));
      await p.keyboard.press('ArrowDown');
      assert.equal(await at(), 'query 2: cat');
      assert.equal(await p.locator('#figure-lines g.tok.focused').count(), 1, 'the focused word shows its lines');
      await p.keyboard.press('ArrowRight');
      assert.equal(await at(), 'key 2: kitten');
      await p.keyboard.press('End');
      assert.equal(await at(), 'key 7: .');
      await p.keyboard.press('ArrowLeft');
      assert.equal(await at(), 'query 7: .');
      assert.deepEqual(await stops(), ['query 7: .'], 'Tab comes back to the word last visited');
      await p.keyboard.press('Tab');
      assert.notEqual(await p.evaluate(() => document.activeElement.closest('#figure-lines g.tokens') !== null), true, 'Tab leaves the words');
    } finally {
      await p.close();
    }
  });

  test('a 40 × 40 matrix keeps the grid\'s DOM bounded: a window of rows around the cursor', async () => {
    const words = Array.from({ length: 40 }, (_, i) => ['the', 'cat', 'sat', 'on', 'a', 'mat', 'by', 'door'][i % 8]).join(' ');
    const p = autoSettle(await h.open(context, `#q=${encodeURIComponent(words)}`));
    try {
      const count = () => p.$eval('#figure-heatmap svg.heatmap', (svg) => ({
        rows: [...svg.querySelectorAll('[role=row]')].map((r) => Number(r.getAttribute('aria-rowindex'))),
        cells: svg.querySelectorAll('[role=gridcell]').length,
        active: svg.getAttribute('aria-activedescendant'),
        total: Number(svg.getAttribute('aria-rowcount')),
      }));
      const first = await count();
      assert.equal(first.total, 41);
      assert.ok(first.cells <= 512, `${first.cells} grid cells in the DOM`);
      assert.equal(first.rows[0], 1, 'the header row');
      assert.equal(first.rows[1], 2, 'then the window, from the first row');
      await p.focus('#figure-heatmap svg.heatmap');
      for (let k = 0; k < 30; k++) await p.keyboard.press('ArrowDown');
      const moved = await count();
      assert.equal(moved.active, 'figure-heatmap-cell-30-0');
      assert.ok(moved.rows.includes(30 + 2), `the cursor's row is in the window: ${moved.rows}`);
      assert.ok(moved.cells <= 512);
      assert.ok(await p.$('#figure-heatmap-cell-30-0'), 'the active descendant exists');
    } finally {
      await p.close();
    }
  });

  test('from 65 tokens (the canvas heatmap): Enter explains the cell at the centre of the detail; Escape returns to it', async () => {
    const words = Array.from({ length: 70 }, (_, i) => ['the', 'cat', 'sat', 'on', 'a', 'mat', 'by', 'door', 'and', 'slept'][i % 10]).join(' ');
    const p = autoSettle(await h.open(context, `#q=${encodeURIComponent(words)}`));
    try {
      await p.waitForSelector('#figure-heatmap-large canvas.hmc-detail');
      await p.focus('#figure-heatmap-large canvas.hmc-detail');
      await p.keyboard.press('ArrowRight');
      const readout = await p.textContent('#figure-heatmap-large .hmc-readout');
      const m = /^row (\d+) .* column (\d+) /.exec(readout);
      assert.ok(m, `the cell at the centre is shown: ${readout}`);
      await p.keyboard.press('Enter');
      await p.waitForFunction(() => document.activeElement && document.activeElement.id === 'figure-why-title');
      assert.match(await p.textContent('#figure-why .why-intro'), new RegExp(`\\(row ${m[1]}\\) gives .* \\(column ${m[2]}\\)`));
      await p.keyboard.press('Escape');
      assert.equal((await focused(p)).cls, 'hmc-detail');
    } finally {
      await p.close();
    }
  });

  test('<attn-scope view="why">: Enter reveals the explanation inside the element, Escape returns to the cell', async () => {
    copyFileSync(join(root, 'dist/attnscope-element.js'), join(tmp, 'attnscope-element.js'));
    writeFileSync(join(tmp, 'why.html'), '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Why</title>'
      + '<script src="attnscope-element.js"></script></head><body><main><h1>Why</h1>'
      + '<attn-scope id="w" view="why" query="The cat sat on the mat." controls="none"></attn-scope></main></body></html>\n');
    const p = h.watch(await fileContext.newPage());
    try {
      await p.goto(pathToFileURL(join(tmp, 'why.html')).href);
      await p.waitForFunction(() => document.getElementById('w').result, null, { timeout: 30000 });
      await p.$eval('#w', (el) => el.shadowRoot.querySelector('svg.heatmap').focus());
      await p.keyboard.press('ArrowDown');
      await p.keyboard.press('ArrowRight');
      await p.keyboard.press('ArrowRight');
      await p.keyboard.press('Enter');
      await p.waitForFunction(() => {
        const r = document.getElementById('w').shadowRoot;
        return r.activeElement && r.activeElement.classList.contains('fig-title') && /‘cat’ \(row 2\) gives ‘sat’/.test(r.querySelector('.why-intro').textContent);
      }, null, { timeout: 10000 });
      assert.equal(await inView(p, '.fig-why .fig-title', '#w'), true);
      await p.keyboard.press('Escape');
      assert.equal((await focused(p)).cls, 'heatmap');
      assert.match(await gridCursor(p.locator('#w svg.heatmap')), /^Row 2, cat; column 3, sat: weight/);
      const live = () => p.$eval('#w', (el) => el.shadowRoot.querySelector('[aria-live]').textContent);
      assert.equal(await live(), '', 'the move back is read from the focus, not the live region');
      // A change the focus does not convey: the page sets the temperature while the grid keeps the
      // focus on the same cell, whose value changes; the live region says the new value, once.
      const before = await gridCursor(p.locator('#w svg.heatmap'));
      await p.$eval('#w', (el) => new Promise((r) => { el.addEventListener('attn-change', r, { once: true }); el.temperature = 0.2; }));
      await p.waitForFunction(() => document.getElementById('w').shadowRoot.querySelector('[aria-live]').textContent !== '', null, { timeout: 10000 });
      const now = await gridCursor(p.locator('#w svg.heatmap'));
      assert.notEqual(now, before, 'the cell\'s value changed');
      assert.equal(await live(), now, 'the live region says the focused cell as it is now');
      assert.equal((await focused(p)).cls, 'heatmap', 'the focus stayed on the grid');
      await p.keyboard.press('ArrowLeft');
      assert.equal(await live(), '', 'the next move is the focus\'s again');
    } finally {
      await p.close();
    }
  });
});
