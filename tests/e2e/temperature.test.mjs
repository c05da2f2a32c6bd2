// Issue #34 item 10: τ follows the scoring function until the visitor moves it; a τ kept from another
// function is named where it changes that function's meaning (scaled-dot at τ = 0.1 is plain dot; cosine at
// τ = 1 cannot get sharp), in a status note with a button back to the function's own τ; the URL says t only
// when the visitor chose it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setup, attendOptions, outDir, autoSettle } from '../../scripts/browser-harness.mjs';

let h, context, page;
const Q = 'The cat sat on the mat.';
const K = 'A kitten rested on the rug.';
const tShown = async (p = page) => Number((await p.textContent('#temperature-out')).replace(/^=\s*/, ''));
const note = (p = page) => p.textContent('#temperature-note');
const hashT = (p = page) => p.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('t'));
before(async () => {
  h = await setup();
  context = await h.newContext();
  page = autoSettle(await h.open(context, `#q=${encodeURIComponent(Q)}&k=${encodeURIComponent(K)}`));
});
after(async () => { if (h) await h.close(); });

test('τ follows the scoring function while the visitor has not chosen it; the URL carries no t', async () => {
  assert.equal(await tShown(), 0.1);
  await page.selectOption('#score', 'scaled-dot');
  assert.equal(await tShown(), 1);
  assert.equal(await note(), '');
  assert.equal(await page.isVisible('#temperature-own'), false);
  await page.waitForFunction(() => location.hash.includes('score=scaled-dot'));
  assert.equal(await hashT(), null);
  await page.selectOption('#score', 'cosine');
  assert.equal(await tShown(), 0.1);
});

test('a τ kept from cosine turns scaled-dot into plain dot, and the page says so (status note, URL, way back)', async () => {
  await page.locator('#temperature').fill('-1');   // log10 τ = −1: the visitor chooses τ = 0.1
  await page.selectOption('#score', 'scaled-dot');
  assert.equal(await tShown(), 0.1, 'a chosen τ is kept');
  assert.equal(await page.getAttribute('#temperature-note', 'role'), 'status');
  assert.match(await note(), /Scaled-dot at τ = 0\.1 divides q·k by τ·√d = 0\.1 × √100 = 1: it behaves as plain dot/);
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('t') === '0.1');
  // What the note says is what the page computed: scaled-dot at τ = 0.1 equals dot at τ = 1.
  const a = h.scope.attend(attendOptions({ q: Q, k: K, score: 'scaled-dot', t: 0.1 })).weights;
  const b = h.scope.attend(attendOptions({ q: Q, k: K, score: 'dot', t: 1 })).weights;
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) < 1e-5);
  for (const [w, hgt, scheme] of [[1366, 768, 'light'], [390, 844, 'dark']]) {
    await page.setViewportSize({ width: w, height: hgt });
    await page.emulateMedia({ colorScheme: scheme });
    await page.locator('#temperature-note').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(outDir, `temperature-kept-${w}-${scheme}.png`) });
    const box = await page.locator('#temperature-note').boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= w + 0.5, `the note fits ${w} px`);
  }
  await page.setViewportSize({ width: 1320, height: 1000 });
  await page.emulateMedia({ colorScheme: 'light' });
  // The button goes back to the function's own τ, and τ follows the function again.
  assert.equal(await page.textContent('#temperature-own'), 'Use scaled-dot’s own τ = 1');
  await page.click('#temperature-own');
  assert.equal(await tShown(), 1);
  assert.equal(await note(), '');
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('t'));
  await page.selectOption('#score', 'cosine');
  assert.equal(await tShown(), 0.1);
});

test('links: a kept τ opens with its note; cosine at τ = 1 names its bound and the ratio e² ≈ 7.39', async () => {
  const p = await h.open(context, `#q=${encodeURIComponent(Q)}&score=cosine&t=1`);
  assert.equal(await tShown(p), 1);
  assert.match(await note(p), /Cosine scores lie in \[−1, 1\], so at τ = 1 no weight can be more than e\^\(2\/τ\) ≈ 7\.39 times another in its row: it cannot get sharp/);
  // And it is true of the weights the page shows: no ratio in a row above e².
  const r = h.scope.attend(attendOptions({ q: Q, score: 'cosine', t: 1 }));
  for (let i = 0; i < r.nq; i++) {
    const row = r.weights.slice(i * r.nk, (i + 1) * r.nk);
    assert.ok(Math.max(...row) / Math.min(...row) <= Math.exp(2) * (1 + 1e-5));
  }
  await p.close();
  const q = await h.open(context, `#q=${encodeURIComponent(Q)}&score=idw`);
  assert.equal(await tShown(q), 1, 'a link without t opens at the function\'s own τ');
  assert.equal(await note(q), '');
  await q.close();
});
