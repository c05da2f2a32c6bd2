// Lab part 3 (web/pages/lab-prototypes/lab-prototypes.html) in Chromium: trained on blobs, the attention classifier's
// test accuracy passes 90% (a behaviour, never a time); pause stops the steps and "+25 steps" adds
// exactly 25; switching the data set starts over on new points; the comparison of the five scoring
// functions fills its table, small maps and reading, and its CSV matches the table; the map's PNG and
// SVG and the curves' export download; the URL keeps the settings; on a 390×844 phone the page fits
// its width; once saved by its service worker it loads and trains offline; light and dark screenshots.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, outDir, autoSettle, parseCSV, settled } from '../../scripts/browser-harness.mjs';

let h;
before(async () => { h = await setup(); });
after(async () => { if (h) await h.close(); });

async function openPage(context, hash = '') {
  const page = h.watch(await context.newPage());
  await page.goto(h.server.url + 'lab-prototypes.html' + hash);
  await page.waitForSelector('body.ready', { timeout: 60000 });
  return autoSettle(page);
}
const steps = (p) => p.$eval('#step-count', (e) => Number(e.dataset.steps));
const testAccuracy = (p) => p.$eval('#accuracy', (e) => Number(e.dataset.test));
const keyPositions = (p) => p.$$eval('#figure-prototype-map g.key', (gs) => gs.map((g) => g.getAttribute('transform')));
async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: dl.suggestedFilename(), bytes: readFileSync(await dl.path()) };
}
/** Clicks Train, and pauses from inside the page (polled every frame) once test accuracy passes `above` or the run ends. */
async function trainUntil(page, above) {
  await page.click('#play');
  await page.waitForFunction((a) => {
    const play = document.getElementById('play');
    const playing = play.getAttribute('aria-pressed') === 'true';
    if (Number(document.getElementById('accuracy').dataset.test) <= a && playing) return false;
    if (playing) play.click();
    return true;
  }, above, { timeout: 180000, polling: 'raf' });
}

describe('lab part 3: attention as a classifier', () => {
  test('blobs: test accuracy passes 90%; pause, +25 steps, another data set, the comparison and the exports', async () => {
    const context = await h.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = await openPage(context, '#data=blobs&score=idw');
      assert.match(page.url(), /#data=blobs$/, 'the URL keeps what differs from the defaults');
      assert.equal(await page.$eval('#dataset', (e) => e.value), 'blobs');
      assert.equal(await page.$eval('#score', (e) => e.value), 'idw');
      assert.equal(await steps(page), 0);
      const start = await testAccuracy(page);
      assert.equal(await page.locator('#figure-prototype-map g.points.train circle').count() +
        await page.locator('#figure-prototype-map g.points.test circle').count(), 400, '400 points drawn');
      assert.equal(await page.locator('#figure-prototype-map g.key').count(), 16, '16 keys drawn');
      const keys0 = await keyPositions(page);
      await page.screenshot({ path: join(outDir, 'lab-prototypes-1440-before.png') });

      await trainUntil(page, 0.9);
      await settled(page);   // the step asked for before the pause lands
      assert.equal(await page.textContent('#play'), 'Train', 'paused');
      const paused = await steps(page);
      const trained = await testAccuracy(page);
      assert.ok(trained > 0.9 && trained > start, `test accuracy ${start} → ${trained} after ${paused} steps`);
      assert.notDeepEqual(await keyPositions(page), keys0, 'the keys moved');
      assert.ok(await page.locator('#figure-prototype-map path.trail').count() === 16, 'a trail per key');
      // Paused: nothing moves however many frames pass.
      await page.evaluate(() => new Promise((r) => { let n = 0; const f = () => (++n < 20 ? requestAnimationFrame(f) : r()); requestAnimationFrame(f); }));
      assert.equal(await steps(page), paused, 'no steps while paused');
      await page.click('#step');
      assert.equal(await steps(page), paused + 25, '+25 steps adds 25');
      // The curves have one loss per step.
      assert.ok(await page.$eval('#figure-loss-curve path.loss-line', (p) => (p.getAttribute('d').match(/L/g) || []).length) === paused + 24);
      await page.screenshot({ path: join(outDir, 'lab-prototypes-1440.png'), fullPage: true });

      // Exports of the plots: PNG and SVG of the map, PNG of the curves.
      const png = await download(page, '#figure-prototype-map button.export-png');
      assert.equal(png.name, 'attnscope-prototype-map.png');
      assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG file');
      assert.ok(png.bytes.length > 5000);
      const svg = await download(page, '#figure-prototype-map button.export-svg');
      const svgText = svg.bytes.toString('utf8');
      assert.match(svgText, /<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      assert.match(svgText, /<image[^>]*href="data:image\/png;base64,/, 'the decision regions travel inside the file');
      assert.equal((svgText.match(/<circle/g) || []).length, 400, 'every point in the SVG');
      const curve = await download(page, '#figure-loss-curve button.export-png');
      assert.deepEqual([...curve.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);

      // Another data set: a new run on new points.
      await page.selectOption('#dataset', 'moons');
      assert.equal(await steps(page), 0, 'a new data set starts over');
      assert.doesNotMatch(page.url(), /data=/, 'the URL keeps the data set (moons, the default, leaves it out)');
      assert.match(await page.textContent('#task-info'), /Two moons: 280 training points, 120 test points, 2 classes/);

      // The comparison: five rows, five maps, a reading, and a CSV equal to the table.
      await page.selectOption('#compare-steps', '300');
      await page.click('#compare-run');
      await page.waitForSelector('#compare[data-state="done"]', { timeout: 180000 });
      const rows = await page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => ({
        score: tr.dataset.score, acc: Number(tr.children[1].dataset.value), dist: Number(tr.children[3].dataset.value),
      })));
      assert.deepEqual(rows.map((r) => r.score), ['dot', 'scaled-dot', 'cosine', 'neg-euclidean', 'idw']);
      for (const r of rows) assert.ok(r.acc > 0.5 && r.acc <= 1 && r.dist >= 0, JSON.stringify(r));
      assert.match(await page.textContent('#compare-table-h'), /Two moons, 400 points \(noise 0\.1\), seed 1, 16 keys/);
      assert.equal(await page.locator('#compare-maps svg.prototype-map').count(), 5);
      const reading = await page.textContent('#compare-reading');
      assert.match(reading, /idw keys/);
      assert.match(reading, /McCarter \(2023\)/);
      const csv = await download(page, '#compare-csv');
      assert.equal(csv.name, 'attnscope-prototypes-moons-seed1.csv');
      const table = parseCSV(csv.bytes.toString('utf8'));
      assert.equal(table.length, 6);
      const col = (name) => table[0].indexOf(name);
      for (let k = 0; k < 5; k++) {
        assert.equal(table[k + 1][0], rows[k].score);
        assert.ok(Math.abs(Number(table[k + 1][col('test_accuracy')]) - rows[k].acc) < 1e-6);
        assert.ok(Math.abs(Number(table[k + 1][col('key_to_nearest_median')]) - rows[k].dist) < 1e-6);
        assert.equal(table[k + 1][col('dataset')], 'moons');
        assert.equal(table[k + 1][col('steps')], '300');
      }
      const small = await download(page, '#figure-prototype-map-idw button.export-svg');
      assert.match(small.bytes.toString('utf8'), /<svg/);
      await page.locator('#compare').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(outDir, 'lab-prototypes-1440-compare.png'), fullPage: true });
      assert.deepEqual(h.log.pageErrors, []);
      assert.deepEqual(h.log.outside, [], 'nothing requested outside the page origin');
    } finally { await context.close(); }
  });

  test('the same settings give the same run (same seed, same numbers after the same steps)', async () => {
    const context = await h.newContext();
    try {
      const read = async () => {
        const page = await openPage(context, '#data=xor&n=200&seed=5&score=neg-euclidean');
        await page.click('#step');
        await page.click('#step');
        const out = [await steps(page), await testAccuracy(page), await page.$eval('#key-distance', (e) => e.dataset.mean), await keyPositions(page)];
        await page.close();
        return out;
      };
      const a = await read(), b = await read();
      assert.equal(a[0], 50);
      assert.deepEqual(a, b);
    } finally { await context.close(); }
  });

  test('on a 390×844 phone, light and dark: the page fits its width and trains', async () => {
    for (const colorScheme of ['light', 'dark']) {
      const context = await h.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, colorScheme });
      try {
        const page = await openPage(context);
        await page.click('#step');
        assert.equal(await steps(page), 25);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 1, `${colorScheme}: the page scrolls sideways by ${overflow}px`);
        const mapWidth = await page.$eval('#figure-prototype-map svg', (s) => s.getBoundingClientRect().width);
        assert.ok(mapWidth <= 390 && mapWidth > 250, `the map is ${mapWidth}px wide`);
        await page.screenshot({ path: join(outDir, `lab-prototypes-390-${colorScheme}.png`), fullPage: true });
      } finally { await context.close(); }
    }
    const dark = await h.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark' });
    try {
      const page = await openPage(dark);
      await page.click('#step');
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(bg, 'rgb(21, 23, 27)', 'the dark theme');
      await page.screenshot({ path: join(outDir, 'lab-prototypes-1440-dark.png'), fullPage: true });
    } finally { await dark.close(); }
  });

  test('offline: once saved by the service worker, the page loads and trains with no network', async () => {
    const context = await h.newContext();
    try {
      const page = await openPage(context);
      await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 120000 });
      await context.setOffline(true);
      await page.reload();
      await page.waitForSelector('body.ready', { timeout: 60000 });
      await page.click('#step');
      assert.equal(await steps(page), 25);
      assert.equal(await page.locator('#figure-prototype-map g.key').count(), 16);
    } finally { await context.close(); }
  });
});
