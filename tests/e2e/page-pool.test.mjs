// The demo computes a long document with many heads on its pool of workers (createAttnPool in its
// compute worker, web/pages/demo/demo-worker.js): the page says how many workers ran, the numbers are one scope's
// bit for bit, Cancel aborts the pooled call and the page keeps working, and small inputs stay on the
// single path. No duration is asserted (the machine is shared). Screenshots go to test-output/.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, settled, outDir } from '../../scripts/browser-harness.mjs';

let h, context, page;
const WORDS = 'the quick brown fox jumps over a lazy dog while seven small birds sing in the old tree by the river'.split(' ');
/** n tokens of prose (n − 1 words and a full stop). */
const doc = (n, offset = 0) => Array.from({ length: n - 1 }, (_, i) => WORDS[(i + offset) % WORDS.length]).join(' ') + '.';
const shot = (name) => page.screenshot({ path: join(outDir, `${name}.png`) });
const POOL_TEXT = /^Computed on (\d+) workers in [\d,]+ ms\.$/;

async function paste(q, timeout = 120000) {
  await page.fill('#keys', '');
  await page.fill('#query', q);
  await settled(page, timeout);
}

/** Bitwise equality of the page's exported numbers (JSON doubles of float32) and the scope's. */
function assertSameBits(nested, want, what) {
  const got = Float32Array.from(nested.flat(2), (x) => (typeof x === 'string' ? Number(x) : x));
  assert.equal(got.length, want.length, `${what}: length`);
  const a = new Uint32Array(got.buffer), b = new Uint32Array(want.buffer, want.byteOffset, want.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) assert.fail(`${what}: element ${i} is ${got[i]} on the page, ${want[i]} from the scope`);
}

/**
 * Pastes 2,000-token documents until the progress line is caught saying the pool computes (the
 * pooled part is a few hundred ms, less on a quiet machine: it must be caught, not waited for); a
 * computation that ends its pooled part first is let finish and the next text tried. From the third
 * try on, four heads: the pooled part twice as long. Returns whether it was caught within 6 tries
 * (with `cancel`, Cancel is pressed the moment it is caught).
 */
async function catchPooled(seed, before = async () => {}, { cancel = false } = {}) {
  for (let attempt = 0; attempt < 6; attempt++) {
    if (attempt) await before(attempt);
    if (attempt === 2 && (await page.inputValue('#heads')) !== '4') { await page.selectOption('#heads', '4'); await settled(page, 120000); }
    await page.fill('#query', doc(2000, seed + attempt));
    await page.waitForFunction(() => document.body.classList.contains('computing'), null, { timeout: 20000, polling: 10 });
    // With cancel, Cancel is pressed in the same task that sees the line (a quiet machine can end
    // the pooled part between a check here and a click sent from the test).
    const state = await page.waitForFunction((cancel) => {
      if (/workers|core/.test(document.querySelector('#compute-text').textContent) && !document.querySelector('#compute-progress').hidden) {
        if (cancel) document.getElementById('compute-cancel').click();
        return 'pooled';
      }
      return document.body.classList.contains('computing') ? false : 'done';
    }, cancel, { timeout: 120000, polling: 10 });
    if ((await state.jsonValue()) === 'pooled') return true;
  }
  return false;
}

before(async () => {
  h = await setup();
  context = await h.newContext({ viewport: { width: 1440, height: 900 } });
  page = await h.open(context);
});
after(async () => { if (h) await h.close(); });

describe('the page on a pool of workers', () => {
  test('a short sentence stays on the single path: no workers named', async () => {
    await paste('The cat sat on the mat.');
    assert.equal(await page.isVisible('#compute-pool'), false);
  });

  test('a long document with two heads is computed on the pool: "N workers" shown, one scope\'s numbers', async () => {
    await page.selectOption('#heads', '2');
    await settled(page);
    // 2 heads × 730 × 730 cells: over the page's POOL_FROM (web/shared/scale.js).
    const text = doc(730);
    await paste(text);
    assert.equal(await page.isVisible('#compute-pool'), true);
    const shown = await page.textContent('#compute-pool');
    const m = POOL_TEXT.exec(shown);
    assert.ok(m, `the page says: ${shown}`);
    // At least two workers (the page's pool has one per core, at least two) and one head each at most.
    assert.equal(Number(m[1]), 2, `workers for 2 heads: ${shown}`);
    await page.locator('#compute-pool').scrollIntoViewIfNeeded();
    await shot('page-pool-01-long-document');
    // The numbers: the page's JSON export against one scope's attend() with the page's options.
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    const got = JSON.parse(readFileSync(await dl.path(), 'utf8'));
    const want = h.scope.attend({ query: text, score: 'cosine', temperature: 0.1, heads: 2, projection: 'identity', seed: 1,
      positional: false, mask: 'none', variant: 'auto', maxTokens: 2000 });
    assert.deepEqual([got.heads, got.nq, got.nk], [2, 730, 730]);
    assert.deepEqual(got.queryTokens, want.queryTokens);
    assertSameBits(got.weights, want.weights, 'weights');
    assertSameBits(got.scores, want.scores, 'scores');
  });

  test('Cancel aborts a pooled computation; the page keeps its picture and computes the next change, on the pool too', async () => {
    await paste(doc(20));
    assert.equal(await page.locator('#figure-heatmap .row-labels text').count(), 20);
    assert.equal(await page.isVisible('#compute-pool'), false);
    const pooled = await catchPooled(3, (attempt) => paste(doc(20, attempt)), { cancel: true });
    assert.ok(pooled, 'the progress line said the pool computed, in one of 6 tries');
    await page.waitForFunction(() => !document.body.classList.contains('computing'), null, { timeout: 10000 });
    assert.equal(await page.isVisible('#compute-progress'), false);
    assert.match(await page.textContent('#notice-text'), /cancelled/);
    // The previous picture: the 20-token heatmap.
    assert.equal(await page.isVisible('#fig-heatmap'), true);
    assert.equal(await page.locator('#figure-heatmap .row-labels text').count(), 20);
    // The next changes: a short sentence on the single path, then a long document on the pool again
    // (its aborted workers replaced).
    await paste(doc(12));
    assert.equal(await page.locator('#figure-heatmap .row-labels text').count(), 12);
    await paste(doc(800, 1));
    assert.match(await page.textContent('#compute-pool'), POOL_TEXT);
    assert.equal(await page.isVisible('#fig-heatmap-large'), true);
    await shot('page-pool-03-after-cancel');
  });

  test('a newer change supersedes a pooled computation: the newer text is drawn, never the older', async () => {
    assert.ok(await catchPooled(11), 'the progress line said the pool computed, in one of 6 tries');
    await page.fill('#query', 'The cat sat on the mat.');
    await settled(page, 120000);
    await page.waitForTimeout(2500);   // a late answer of the long document would have landed by now
    assert.deepEqual(await page.locator('#figure-heatmap .row-labels text').allTextContents(), ['The', 'cat', 'sat', 'on', 'the', 'mat', '.']);
    assert.equal(await page.isVisible('#compute-pool'), false);
  });

  test('no console error, no page error, no dialog', () => {
    assert.deepEqual(h.log.pageErrors, []);
    assert.deepEqual(h.log.consoleErrors, []);
    assert.deepEqual(h.log.dialogs, []);
  });
});
