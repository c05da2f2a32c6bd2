// The page's selection logic (web/shared/selection.js): gestures → lists, and the sums a selection shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applySelect, within, rowSummary, colSummary, overHeads } from '../../web/shared/selection.js';

test('a plain click selects one token, shift extends from the anchor, ctrl toggles', () => {
  let s = applySelect(null, 3);
  assert.deepEqual(s.list, [3]);
  s = applySelect(s, 6, { shift: true });
  assert.deepEqual(s.list, [3, 4, 5, 6]);
  s = applySelect(s, 1, { shift: true });            // a drag back past the anchor: the range follows
  assert.deepEqual(s.list, [1, 2, 3]);
  s = applySelect(s, 9, { toggle: true });
  assert.deepEqual(s.list, [1, 2, 3, 9]);
  s = applySelect(s, 11, { shift: true });           // from the toggled token, keeping the rest
  assert.deepEqual(s.list, [1, 2, 3, 9, 10, 11]);
  s = applySelect(s, 2, { toggle: true });
  assert.deepEqual(s.list, [1, 3, 9, 10, 11]);
  s = applySelect(s, 5);
  assert.deepEqual(s.list, [5]);
  assert.deepEqual(applySelect(null, 4, { shift: true }).list, [4], 'shift with no anchor selects the token');
  assert.deepEqual(within([0, 3, 7, 12], 8), [0, 3, 7]);
});

test('every gesture sequence gives a sorted list of unique indices', () => {
  const gesture = fc.record({ index: fc.nat(50), shift: fc.boolean(), toggle: fc.boolean() });
  fc.assert(fc.property(fc.array(gesture, { maxLength: 30 }), (gs) => {
    let s = null;
    for (const g of gs) s = applySelect(s, g.index, g);
    const list = s ? s.list : [];
    for (let k = 1; k < list.length; k++) assert.ok(list[k] > list[k - 1]);
  }));
});

test('row and column summaries are the sums and means of the selected weights', () => {
  const nq = 3, nk = 4;
  const w = Float32Array.from([0.1, 0.2, 0.3, 0.4, 0.25, 0.25, 0.25, 0.25, 0.7, 0.1, 0.1, 0.1]);
  const r = rowSummary(w, nq, nk, [0, 2]);
  assert.deepEqual(Array.from(r.sum, (v) => +v.toFixed(6)), [0.8, 0.3, 0.4, 0.5]);
  assert.deepEqual(Array.from(r.mean, (v) => +v.toFixed(6)), [0.4, 0.15, 0.2, 0.25]);
  const c = colSummary(w, nq, nk, [1, 3]);
  assert.deepEqual(Array.from(c.sum, (v) => +v.toFixed(6)), [0.6, 0.5, 0.2]);
  assert.deepEqual(Array.from(c.mean, (v) => +v.toFixed(6)), [0.3, 0.25, 0.1]);
  const h = overHeads(Float32Array.from([1, 0, 0, 1, 0, 1, 1, 0]), 2, 2, 2);
  assert.deepEqual(Array.from(h.mean), [0.5, 0.5, 0.5, 0.5]);
  assert.deepEqual(Array.from(h.max), [1, 1, 1, 1]);
});
