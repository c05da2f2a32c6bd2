// The model page's grid computations (web/shared/compute/imported.js, run by its worker): which block of a
// big stack is shown, and the thumbnails' levels against a direct reference (every pixel the largest
// weight of the cells it covers, scaled by its head's largest weight).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GRID_MAX, gridPage, gridThumbnails, thumbSize } from '../../web/shared/compute/imported.js';
import { rng } from './helpers.mjs';

test('gridPage: the whole stack up to GRID_MAX layers and heads, else the block holding the head', () => {
  assert.equal(GRID_MAX, 64);
  assert.deepEqual(gridPage({ layers: 12, heads: 12 }, 11, 11), { l0: 0, h0: 0, layers: 12, heads: 12 });
  assert.deepEqual(gridPage({ layers: 1024, heads: 1024 }, 0, 0), { l0: 0, h0: 0, layers: 64, heads: 64 });
  assert.deepEqual(gridPage({ layers: 1024, heads: 1024 }, 999, 499), { l0: 960, h0: 448, layers: 64, heads: 64 });
  assert.deepEqual(gridPage({ layers: 100, heads: 1 }, 99, 0), { l0: 64, h0: 0, layers: 36, heads: 1 });
  // A head past the end (a link's, before the file is known) is the last block.
  assert.deepEqual(gridPage({ layers: 70, heads: 3 }, 500, 9), { l0: 64, h0: 0, layers: 6, heads: 3 });
});

test('gridThumbnails: each pixel is the largest weight it covers, scaled by its head\'s largest', () => {
  const r = rng(7);
  for (const [L, H, nq, nk] of [[2, 3, 50, 40], [1, 2, 7, 7], [3, 1, 300, 200]]) {
    const A = r.floats(L * H * nq * nk, 1).map(Math.abs);
    A.fill(0, 0, nq * nk);   // a head of zeros: every level 0
    const meta = { layers: L, heads: H, nq, nk };
    const t = gridThumbnails(A, meta, gridPage(meta));
    const { tw, th } = thumbSize(H, nq, nk);
    assert.deepEqual([t.tw, t.th, t.levels.length], [tw, th, L * H * tw * th]);
    for (let lh = 0; lh < L * H; lh++) {
      const head = A.subarray(lh * nq * nk, (lh + 1) * nq * nk);
      const max = head.reduce((m, x) => Math.max(m, x), 0);
      for (let y = 0; y < th; y++) for (let x = 0; x < tw; x++) {
        const i0 = Math.floor((y * nq) / th), i1 = Math.max(i0 + 1, Math.floor(((y + 1) * nq) / th));
        const j0 = Math.floor((x * nk) / tw), j1 = Math.max(j0 + 1, Math.floor(((x + 1) * nk) / tw));
        let m = 0;
        for (let i = i0; i < i1; i++) for (let j = j0; j < j1; j++) m = Math.max(m, head[i * nk + j]);
        const want = max > 0 ? Math.min(255, Math.round(m * (255 / max))) : 0;
        assert.equal(t.levels[(lh * th + y) * tw + x], want, `[${L},${H},${nq},${nk}] head ${lh} pixel (${y}, ${x})`);
      }
    }
  }
});

test('gridThumbnails: a block of a [200, 100, 4, 4] stack reads its own heads', () => {
  const L = 200, H = 100, n = 4;
  const A = new Float32Array(L * H * n * n);
  // Head (l, h) attends from token i to token (l + h + i) mod n: its thumbnail says which.
  for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) for (let i = 0; i < n; i++) A[((l * H + h) * n + i) * n + ((l + h + i) % n)] = 1;
  const meta = { layers: L, heads: H, nq: n, nk: n };
  const page = gridPage(meta, 150, 70);
  assert.deepEqual(page, { l0: 128, h0: 64, layers: 64, heads: 36 });
  let calls = 0;
  const t = gridThumbnails(A, meta, page, () => calls++);
  assert.equal(calls, 64 * 36);
  const s = t.side / n;   // pixels per token
  for (const [l, h] of [[0, 0], [22, 6], [63, 35]]) {
    const o = (l * page.heads + h) * t.th * t.tw;
    const j = (page.l0 + l + page.h0 + h) % n;   // row 0's key
    assert.equal(t.levels[o + j * s], 255, `block head (${l}, ${h}) row 0 looks at key ${j}`);
    assert.equal(t.levels[o + ((j + 1) % n) * s], 0);
  }
});
