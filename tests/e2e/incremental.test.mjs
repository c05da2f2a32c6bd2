// The short-text plots (SVG heatmap and line view) redraw a keystroke incrementally (issue 11): the
// elements are kept, and only what changed is written. These tests prove that nothing is skipped
// wrongly: after typing, every element and attribute of both plots equals what a fresh load of the
// same URL (same text, heads, selection) draws, and the elements of the tokens kept are the same nodes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, autoSettle } from '../../scripts/browser-harness.mjs';

let h, context;
before(async () => {
  h = await setup();
  context = await h.newContext({ viewport: { width: 1440, height: 900 } });
});
after(async () => { if (h) await h.close(); });

const PLOTS = ['#figure-heatmap svg.heatmap', '#figure-lines svg.lineview'];
const KEPT = 'g.lines line, g.cells rect, g.cell-values text, .row-labels text, .col-labels text, g.tokens g.tok, g.legend rect';

/**
 * Every element of both plots, in document order: its tag, its attributes (sorted by name) and, for
 * an element without child elements, its text. Of a hidden element (visibility="hidden": a line too
 * faint to draw, the cursor, the outline of a cell no longer open) only the tag, class and visibility:
 * it is not drawn, and a redraw keeps the position or opacity last written where a fresh page has none.
 */
function snapshot(page) {
  return page.evaluate((plots) => plots.map((sel) => {
    const svg = document.querySelector(sel);
    return [svg, ...svg.querySelectorAll('*')].map((e) => {
      const attrs = [...e.attributes].map((a) => [a.name, a.value])
        .filter(([name]) => e.getAttribute('visibility') !== 'hidden' || name === 'class' || name === 'visibility')
        .sort((a, b) => (a[0] < b[0] ? -1 : 1));
      return { tag: e.tagName, attrs: Object.fromEntries(attrs), text: e.childElementCount ? null : e.textContent };
    });
  }), PLOTS);
}
/** Remembers the plots' kept elements (lines, cells, numbers, labels) in the page. */
const markNodes = (page) => page.evaluate(([plots, kept]) => {
  window.__kept = plots.map((sel) => [...document.querySelector(sel).querySelectorAll(kept)]);
  return window.__kept.map((a) => a.length);
}, [PLOTS, KEPT]);
/** How many remembered elements are still in the page, and whether the plots' elements now start with them, in order. */
const keptNodes = (page) => page.evaluate(([plots, kept]) => window.__kept.map((old, p) => {
  const now = [...document.querySelector(plots[p]).querySelectorAll(kept)];
  return { connected: old.filter((n) => n.isConnected).length, total: old.length, now: now.length,
    sameOrder: old.every((n) => now.includes(n)) && old.every((n, t) => t === 0 || now.indexOf(old[t - 1]) < now.indexOf(n)) };
}), [PLOTS, KEPT]);

/** Waits until the URL carries the query `q` (the page writes it shortly after a change). */
async function urlHas(page, q) {
  await page.waitForFunction((want) => new URLSearchParams(location.hash.slice(1)).get('q') === want, q, { timeout: 5000 });
  return page.url();
}

/** The plots of a fresh page opened at `url`. */
async function fresh(url) {
  const p = autoSettle(await h.open(context, new URL(url).hash));
  try { return await snapshot(p); } finally { await p.close(); }
}

function assertSamePlots(got, want, what) {
  for (let p = 0; p < PLOTS.length; p++) {
    assert.equal(got[p].length, want[p].length, `${what}, ${PLOTS[p]}: as many elements as a fresh page`);
    got[p].forEach((e, t) => assert.deepEqual(e, want[p][t], `${what}, ${PLOTS[p]}: element ${t} (${e.tag}) as on a fresh page`));
  }
}

test('typing that keeps the token count rewrites the same elements, which then equal a fresh page\'s', async () => {
  const q = 'The cat sat on the mat and the dog lay on the rug';
  // Selected rows, a column and a cell, so the lines' "unselected" classes, the labels' "selected"
  // marks and the selection's outlines are covered.
  const page = autoSettle(await h.open(context, `#q=${encodeURIComponent(q)}&heads=2&proj=random&seed=3&rows=2-3&cols=4&cell=1,5`));
  const counts = await markNodes(page);
  assert.ok(counts[0] > 13 * 13 && counts[1] > 2 * 13 * 13, `cells, numbers and lines drawn: ${counts}`);
  const before = await snapshot(page);
  assert.ok(before[0].some((e) => e.tag === 'text' && /cell-value/.test(e.attrs.class ?? '')), 'the cells show their numbers (size ≥ 30 px)');
  assert.ok(before[1].some((e) => /unselected/.test(e.attrs.class ?? '')), 'the lines of the rows not selected are faded');

  await page.focus('#query');
  await page.keyboard.press('End');
  await page.keyboard.press('Backspace');   // "rug" → "ru": same token count, other values
  const url = await urlHas(page, q.slice(0, -1));
  const after = await snapshot(page);
  const kept = await keptNodes(page);
  for (const k of kept) {
    assert.equal(k.connected, k.total, 'every line, cell, number and label is the same element as before');
    assert.equal(k.now, k.total, 'and there are as many');
    assert.ok(k.sameOrder, 'in the same order');
  }
  const fills = (s) => s[0].filter((e) => e.tag === 'rect' && /^cell/.test(e.attrs.class ?? '')).map((e) => e.attrs.fill).join();
  const opacities = (s) => s[1].filter((e) => e.tag === 'line').map((e) => e.attrs['stroke-opacity']).join();
  assert.notEqual(fills(after), fills(before), 'the keystroke changed cell colours');
  assert.notEqual(opacities(after), opacities(before), 'and line opacities');
  assertSamePlots(after, await fresh(url), 'after a keystroke that keeps the count');
  await page.close();
});

test('typing that adds a token and erases it keeps the other elements, and the plots equal a fresh page\'s', async () => {
  const q = 'The cat sat on the mat and the dog lay on the rug';
  const page = autoSettle(await h.open(context, `#q=${encodeURIComponent(q)}&heads=2&proj=random&seed=3`));
  await markNodes(page);
  await page.focus('#query');
  await page.keyboard.press('End');
  await page.keyboard.type(' and');
  const url = await urlHas(page, `${q} and`);
  const kept = await keptNodes(page);
  for (const k of kept) {
    assert.equal(k.connected, k.total, 'the elements of the tokens kept are the same elements');
    assert.ok(k.now > k.total, 'and new ones were added for the new token');
    assert.ok(k.sameOrder, 'in their order');
  }
  assertSamePlots(await snapshot(page), await fresh(url), 'after a keystroke that adds a token');
  // Erased again: the new token's elements go, the others are still the same nodes.
  for (let t = 0; t < 4; t++) await page.keyboard.press('Backspace');
  const back = await urlHas(page, q);
  for (const k of await keptNodes(page)) {
    assert.equal(k.connected, k.total, 'after erasing it, the first elements are still the same');
    assert.equal(k.now, k.total, 'and the added ones are gone');
  }
  assertSamePlots(await snapshot(page), await fresh(back), 'after erasing the token');
  await page.close();
});

test('a head toggle and a change of the cells\' size (more tokens) redraw as a fresh page draws', async () => {
  const q = 'The cat sat on the mat';
  const page = autoSettle(await h.open(context, `#q=${encodeURIComponent(q)}&heads=2&proj=random&seed=3`));
  await page.click('#figure-lines .head-toggle:nth-child(1)');   // head 1 hidden: only head 2's lines
  const lines = await page.locator('#figure-lines g.lines line').count();
  assert.ok(lines > 0 && lines === (await page.locator('#figure-lines g.lines line.head-c1').count()), 'only head 2\'s lines are drawn');
  await page.click('#figure-lines .head-toggle:nth-child(1)');   // and back
  await page.focus('#query');
  await page.keyboard.press('End');
  const more = ' and the dog lay on the rug while seven small birds sang';   // from 34 px cells to smaller ones
  await page.keyboard.type(more);
  const url = await urlHas(page, q + more);
  assertSamePlots(await snapshot(page), await fresh(url), 'after typing many tokens');
  await page.close();
});
