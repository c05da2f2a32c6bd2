// The site once loaded works offline: its service worker (web/shared/sw.js, filled in by build-web) saves
// every page's code on the first visit of any page, the vocabulary only where a visited page loads it
// (lab part 3 without it), and answers from that cache: after the demo alone, every page opens offline. Each test has its own browser context (so its
// own service workers and caches); the tests that take the network away or change the build serve
// their own copy of the page on their own port, leaving the shared server alone.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, startServer, attendOptions, outDir, root, settled } from '../../scripts/browser-harness.mjs';
import { offlineFiles, offlinePages, siteFiles, writeServiceWorker } from '../../scripts/offline-manifest.mjs';
import { PAGES, pageOutputs } from '../../scripts/pages.mjs';

const web = join(root, 'dist/web');
const SENTENCE = 'Offline, the kernels still weigh every word of this sentence.';
let h;

before(async () => { h = await setup(); });
after(async () => { if (h) await h.close(); });

const cells = (p) => p.locator('#figure-heatmap svg.heatmap g.cells rect').count();
const builtVersion = (dir) => /const VERSION = "([0-9a-f]+)"/.exec(readFileSync(join(dir, 'sw.js'), 'utf8'))[1];
/** The caches the page's origin holds: name → the URLs in it, sorted. */
const cacheContents = (p) => p.evaluate(async () => {
  const out = {};
  for (const name of await caches.keys()) out[name] = (await (await caches.open(name)).keys()).map((r) => r.url).sort();
  return out;
});
/** Waits until a service worker controls the page (it has saved every file by then). */
/**
 * Polls an async condition in the page until it holds. page.waitForFunction does not wait for a
 * predicate's promise (a pending promise counts as truthy), and a navigation in between destroys the
 * context an evaluation runs in: both are handled here.
 */
async function until(p, predicate, arg, { timeout = 30000, what = 'the condition' } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    try {
      if (await p.evaluate(predicate, arg)) return;
    } catch (e) {
      if (!/context was destroyed|navigation|Target closed/i.test(e.message)) throw e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const controlled = (p) => p.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30000 });

describe('offline', () => {
  test('the build lists every file of the page for the service worker, with a content-hash version', () => {
    const files = offlineFiles(web);
    for (const f of ['index.html', 'demo.js', 'style.css', 'attnscope.wasm', 'attnscope-relaxed.wasm', 'attnscope-scalar.wasm', 'glove-50k.bin']) {
      assert.ok(files.includes(f), `${f} is saved for offline use (list: ${files.join(', ')})`);
    }
    assert.ok(!files.some((f) => f.endsWith('.map') || f === 'sw.js'));
    const sw = readFileSync(join(web, 'sw.js'), 'utf8');
    assert.match(builtVersion(web), /^[0-9a-f]{16}$/);
    for (const f of files) assert.ok(sw.includes(JSON.stringify(f)), `sw.js lists ${f}`);
    assert.doesNotMatch(sw, /https?:\/\//, 'the worker names no other origin');
    // What each page saves: its own files, and the vocabulary only where the page loads it.
    const pages = offlinePages(web);
    assert.deepEqual(Object.keys(pages).sort(), PAGES.map((p) => p.html).sort(), 'the pages of scripts/pages.mjs');
    for (const [page, needs] of Object.entries(pages)) {
      // Every page links the shared style sheet; a page with a worker computes with the wasm.
      const computes = !!PAGES.find((p) => p.html === page).worker;
      for (const f of [page, 'style.css', ...(computes ? ['attnscope.wasm', 'attnscope-relaxed.wasm', 'attnscope-scalar.wasm'] : [])]) assert.ok(needs.includes(f), `${page} saves ${f}`);
      assert.equal(needs.includes('glove-50k.bin'), !!PAGES.find((p) => p.html === page).vocabulary, `${page} and the vocabulary`);
      assert.ok(needs.every((f) => files.includes(f)));
      assert.ok(sw.includes(JSON.stringify(page)), `sw.js lists the files of ${page}`);
    }
    // Every file an entry of scripts/pages.mjs names (its HTML, script, worker, style sheet); the demo's pool's worker.
    for (const p of PAGES) for (const f of pageOutputs(p)) assert.ok(pages[p.html].includes(f), `${p.html} saves ${f}`);
    assert.ok(pages['index.html'].includes('pool-worker.mjs'), 'index.html saves pool-worker.mjs');
    assert.deepEqual(files.filter((f) => !Object.values(pages).some((x) => x.includes(f))), [], 'every file is saved by some page');
    // What the first visit of any page saves: every page's files but the vocabulary.
    const site = siteFiles(pages);
    assert.deepEqual(site, files.filter((f) => !/^glove-/.test(f)));
    for (const f of [...PAGES.flatMap(pageOutputs), 'lab.css']) assert.ok(site.includes(f), `the site saves ${f}`);
    assert.ok(sw.includes(`const SITE = ${JSON.stringify(site, null, 2)};`), 'sw.js lists the site\'s files');
  });

  test('once loaded, the page reloads and computes with the server gone and the network off', async () => {
    const server = await startServer();
    const context = await h.newContext({}, new URL(server.url).origin);
    try {
      const page = await h.open(context, '', server.url);
      await controlled(page);
      assert.match(await page.textContent('#offline-status'), /^Available offline/);
      const version = builtVersion(web);
      const pages = offlinePages(web);
      assert.deepEqual(await cacheContents(page), {
        [`attnscope-web-${version}`]: [...new Set([...siteFiles(pages), ...pages['index.html']])].map((f) => server.url + f).sort(),
      }, 'the demo saves every page\'s code and its own vocabulary');

      // No network at all: the server is stopped and the browser is offline.
      await server.stop();
      await context.setOffline(true);
      const responses = [], failed = [];
      page.on('response', (r) => responses.push(r));
      page.on('requestfailed', (r) => failed.push(r.url()));
      await page.reload();
      await page.waitForSelector('body.ready', { timeout: 30000 });
      assert.match(await page.textContent('#load-text'), /^Ready: 50,000 words/);
      assert.equal(await page.isVisible('#offline-status'), true);
      assert.deepEqual(failed, []);
      const served = responses.map((r) => [r.url().replace(server.url, ''), r.status(), r.fromServiceWorker()]);
      for (const f of ['', 'demo.js', 'style.css', 'attnscope-relaxed.wasm', 'glove-50k.bin']) {  // Chromium runs the relaxed-SIMD build
        assert.deepEqual(served.find(([u]) => u === f), [f, 200, true], `${f || 'the page'} came from the service worker`);
      }
      assert.ok(served.every(([, status, sw]) => status === 200 && sw), JSON.stringify(served));

      // Typing still computes: the heatmap has n_q × n_k cells for the new sentence.
      await page.fill('#keys', '');
      await page.fill('#query', SENTENCE);
      await settled(page);   // the worker's answer, then the redraw: counted before it, the cells are the old ones
      const r = h.scope.attend(attendOptions({ q: SENTENCE, k: '' }));
      assert.equal(await cells(page), r.nq * r.nk);
      assert.deepEqual(await page.locator('#figure-heatmap .row-labels text').allTextContents(), r.queryTokens);
      await page.screenshot({ path: join(outDir, '12-offline.png'), fullPage: true });
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test('the trained model downloads once: saved as the demo first loads it, then it opens offline', async () => {
    const server = await startServer();
    const context = await h.newContext({}, new URL(server.url).origin);
    try {
      const page = await h.open(context, '', server.url);
      await controlled(page);
      await page.waitForSelector('#offline-status[data-kept="true"]', { state: 'attached', timeout: 60000 });
      const saved = async () => Object.values(await cacheContents(page))[0].some((u) => u.endsWith('/use-lite.bin'));
      assert.equal(await saved(), false, 'not saved before it is used');
      // The visitor chooses the trained model: it downloads (through the service worker) and is saved.
      await page.check('#engine-model');
      await settled(page, 60000);
      await until(page, async () => {
        for (const name of await caches.keys()) if ((await (await caches.open(name)).keys()).some((r) => r.url.endsWith('/use-lite.bin'))) return true;
        return false;
      }, null, { timeout: 60000, what: 'use-lite.bin in the cache' });

      await server.stop();
      await context.setOffline(true);
      // (The model is fetched by the page's worker: with the server stopped and the network off, that it
      // loads at all says it came from the service worker's cache.)
      const failed = [];
      context.on('requestfailed', (r) => failed.push(r.url()));
      await page.reload();
      await page.waitForSelector('body.ready', { timeout: 60000 });
      await settled(page, 60000);
      assert.ok(await page.isChecked('#engine-model'));
      assert.equal(await page.isVisible('#model-views'), true);
      assert.equal(await page.locator('#model-views svg, #model-views canvas').count() > 0, true, 'the model\'s figures are drawn');
      assert.deepEqual(failed, []);
      assert.match(await page.textContent('#model-views'), /layer/i);
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test('lab part 3 saves the site\'s code without the vocabulary; the demo opened next adds it; both load offline', async () => {
    const server = await startServer();
    const context = await h.newContext({}, new URL(server.url).origin);
    const since = h.log.requests.length;
    const cachedNow = async (p) => Object.values(await cacheContents(p))[0] || [];
    try {
      const part3 = h.watch(await context.newPage());
      await part3.goto(server.url + 'lab-prototypes.html');
      await part3.waitForSelector('body.ready', { timeout: 60000 });
      await controlled(part3);
      await part3.waitForSelector('#offline-status[data-kept="true"]', { state: 'attached', timeout: 30000 });
      const pages = offlinePages(web);
      const own = siteFiles(pages).map((f) => server.url + f).sort();
      assert.deepEqual(await cachedNow(part3), own, 'part 3 saves every page\'s code, no vocabulary');
      assert.ok(pages['lab-prototypes.html'].every((f) => own.includes(server.url + f)), 'its own files among them');
      const vocabulary = h.log.requests.slice(since).filter((u) => u.startsWith(server.url) && /glove-50k\.bin/.test(u));
      assert.deepEqual(vocabulary, [], 'nothing asked for the vocabulary (the page and its service worker)');

      // The demo, opened next in the same browser: the worker is active already, and the page's
      // 'keep' message adds the demo's files (the vocabulary with them) to the same cache.
      const demo = h.watch(await context.newPage());
      await demo.goto(server.url);
      await demo.waitForSelector('body.ready', { timeout: 60000 });
      await demo.waitForSelector('#offline-status[data-kept="true"]', { state: 'attached', timeout: 60000 });
      assert.deepEqual(await cachedNow(demo), [...new Set([...own, ...pages['index.html'].map((f) => server.url + f)])].sort());

      await server.stop();
      await context.setOffline(true);
      await part3.reload();
      await part3.waitForSelector('body.ready', { timeout: 60000 });
      await part3.click('#step');
      await part3.waitForFunction(() => document.getElementById('step-count').dataset.steps === '25', null, { timeout: 30000 });
      await demo.reload();
      await demo.waitForSelector('body.ready', { timeout: 60000 });
      assert.match(await demo.textContent('#load-text'), /^Ready: 50,000 words/);
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test('after a visit of the demo alone, the lab, the model page and lab part 3 open offline and compute', async () => {
    const server = await startServer();
    const context = await h.newContext({}, new URL(server.url).origin);
    const since = h.log.requests.length;
    try {
      const page = await h.open(context, '', server.url);
      await controlled(page);
      await page.waitForSelector('#offline-status[data-kept="true"]', { state: 'attached', timeout: 60000 });
      // The model's weights file was not asked for (the demo does not use it) and is not saved.
      const cached = Object.values(await cacheContents(page))[0];
      assert.ok(!cached.some((u) => /use-lite\./.test(u)), 'the model\'s weights are not saved');
      assert.ok(!h.log.requests.slice(since).some((u) => /use-lite\.bin/.test(u)), 'nor asked for');

      await server.stop();
      await context.setOffline(true);
      const failed = [], notFromWorker = [];
      page.on('requestfailed', (r) => { if (!/use-lite\./.test(r.url())) failed.push(r.url()); });
      page.on('response', (r) => { if (!r.fromServiceWorker()) notFromWorker.push(r.url()); });

      // The lab (never visited): it loads its kernels and the vocabulary the demo saved, and trains.
      await page.goto(server.url + 'lab.html');
      await page.waitForSelector('#status[data-ready="true"]', { timeout: 60000 });
      await settled(page, 60000);
      await page.click('#step');
      await page.waitForFunction(() => Number(document.getElementById('step-count').dataset.steps) === 5, null, { timeout: 60000 });
      assert.match(await page.textContent('#offline-status'), /^Available offline/);

      // The model page: its trained model is not saved (large data, fetched when used), so it opens
      // without it (the failed request is its only console error, collected here apart); a dropped
      // attention file is read and drawn.
      const model = await context.newPage();
      const modelErrors = [];
      model.on('console', (msg) => { if (msg.type() === 'error') modelErrors.push([msg.text(), msg.location().url]); });
      model.on('pageerror', (e) => modelErrors.push([String(e), '']));
      model.on('requestfailed', (r) => { if (!/use-lite\./.test(r.url())) failed.push(r.url()); });
      model.on('response', (r) => { if (!r.fromServiceWorker()) notFromWorker.push(r.url()); });
      await model.goto(server.url + 'model.html');
      await model.waitForSelector('body.ready', { timeout: 30000 });
      const L = 1, H = 2, N = 3;
      const row = (i) => Array.from({ length: N }, (_, j) => (j <= i ? 1 / (i + 1) : 0));
      const attentions = Array.from({ length: L }, () => Array.from({ length: H }, () => Array.from({ length: N }, (_, i) => row(i))));
      const name = await model.evaluate((json) => new Promise((resolve, reject) => {
        const notice = document.getElementById('notice');
        notice.hidden = true;
        document.addEventListener('model-loaded', (e) => resolve(e.detail.name), { once: true });
        new MutationObserver(() => { if (!notice.hidden) reject(new Error(document.getElementById('notice-text').textContent)); })
          .observe(notice, { attributes: true, attributeFilter: ['hidden'] });
        const dt = new DataTransfer();
        dt.items.add(new File([json], 'offline.json'));
        document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }), JSON.stringify({ tokens: ['the', 'cat', 'sat'], attentions }));
      assert.equal(name, 'offline.json');
      assert.match(await model.textContent('#file-info'), /1 layer[s]? × 2 heads × 3 × 3 tokens/);
      assert.ok(modelErrors.every(([text, url]) => /use-lite\.bin/.test(url) && /ERR_INTERNET_DISCONNECTED|ERR_FAILED/.test(text)), JSON.stringify(modelErrors));
      await model.close();

      // Lab part 3 (never visited): trains 25 steps.
      await page.goto(server.url + 'lab-prototypes.html');
      await page.waitForSelector('body.ready', { timeout: 60000 });
      await page.click('#step');
      await page.waitForFunction(() => document.getElementById('step-count').dataset.steps === '25', null, { timeout: 60000 });

      assert.deepEqual(failed, [], 'no request failed');
      assert.deepEqual(notFromWorker.filter((u) => !/use-lite\./.test(u)), [], 'every file came from the service worker');
    } finally {
      await context.close();
      await server.stop();
    }
  });

  test('a new build replaces the saved copy and deletes the old cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'attnscope-web-'));
    cpSync(web, dir, { recursive: true });
    const server = await startServer(dir);
    const context = await h.newContext({}, new URL(server.url).origin);
    try {
      const page = await h.open(context, '', server.url);
      await controlled(page);
      const old = builtVersion(dir);
      assert.deepEqual(Object.keys(await cacheContents(page)), [`attnscope-web-${old}`]);

      // "Rebuild": one file changes, and with it sw.js and the cache version.
      appendFileSync(join(dir, 'style.css'), '\n/* rebuilt */\n');
      const { version } = writeServiceWorker(dir, join(root, 'web/shared/sw.js'));
      assert.notEqual(version, old);
      await page.evaluate(async () => { await (await navigator.serviceWorker.getRegistration()).update(); });
      await until(page, async (name) => {
        const names = await caches.keys();
        return names.length === 1 && names[0] === name;
      }, `attnscope-web-${version}`, { what: 'the old cache to be replaced by the new one' });
      await page.waitForFunction(() => /newer version/.test(document.getElementById('offline-status').textContent));

      await page.reload();
      await page.waitForSelector('body.ready', { timeout: 30000 });
      assert.match(await page.evaluate(async () => (await fetch('style.css')).text()), /rebuilt/);
    } finally {
      await context.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the kill switch (sw-kill.js deployed as sw.js) removes the saved copy on the next visit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'attnscope-web-'));
    cpSync(web, dir, { recursive: true });
    const server = await startServer(dir);
    const context = await h.newContext({}, new URL(server.url).origin);
    try {
      const page = await h.open(context, '', server.url);
      await controlled(page);
      assert.equal(Object.keys(await cacheContents(page)).length, 1);
      assert.ok(!offlineFiles(dir).includes('sw-kill.js'), 'the kill switch itself is not saved');

      // The site retires its offline copy: the kill switch replaces sw.js, and one file changes
      // without a new worker (which the old worker would otherwise keep serving from its cache).
      cpSync(join(dir, 'sw-kill.js'), join(dir, 'sw.js'));
      appendFileSync(join(dir, 'style.css'), '\n/* after the kill switch */\n');
      // A plain reload: the page's own update check (offline.js) finds the new sw.js, which deletes
      // the caches, unregisters itself and reloads the page from the network. Wait for that reload:
      // until it, the page is still controlled (by the kill switch), and a visit racing it is not the
      // "next visit" this test is about.
      await page.reload();
      await until(page, async () => !navigator.serviceWorker.controller &&
        (await caches.keys()).length === 0 && !(await navigator.serviceWorker.getRegistration()),
      null, { what: 'the kill switch to remove the caches and the worker and reload the page' });
      const responses = [];
      page.on('response', (r) => responses.push(r));
      await page.reload();
      await page.waitForSelector('body.ready', { timeout: 30000 });
      const fromWorker = responses.filter((r) => r.fromServiceWorker()).map((r) => r.url());
      assert.deepEqual(fromWorker, [], 'nothing comes from a service worker any more');
      assert.match(await page.evaluate(async () => (await fetch('style.css')).text()), /after the kill switch/);
      // The page registers sw.js again on each load; the kill switch keeps unregistering it.
      await page.waitForTimeout(500);
      assert.deepEqual(await cacheContents(page), {});
    } finally {
      await context.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const WITHOUT = {
    'has no service workers': () => { delete Navigator.prototype.serviceWorker; },
    'refuses to register one': () => {
      ServiceWorkerContainer.prototype.register = () => Promise.reject(new DOMException('refused', 'SecurityError'));
    },
  };
  for (const [name, script] of Object.entries(WITHOUT)) {
    test(`a browser that ${name} gets the page as before, without the offline line`, async () => {
      const context = await h.newContext();
      try {
        await context.addInitScript(script);
        const page = await h.open(context);
        assert.equal(await page.evaluate(() => !!(navigator.serviceWorker && navigator.serviceWorker.controller)), false);
        await page.fill('#query', SENTENCE);
        await settled(page);
        const r = h.scope.attend(attendOptions({ q: SENTENCE, k: 'A kitten rested on the rug.' }));
        assert.equal(await cells(page), r.nq * r.nk);
        await page.waitForTimeout(300);
        assert.equal(await page.isVisible('#offline-status'), false);
      } finally {
        await context.close();
      }
    });
  }

  test('no console error (pages and workers), no page error, no request outside the origin', () => {
    assert.deepEqual(h.log.consoleErrors, []);
    assert.deepEqual(h.log.pageErrors, []);
    assert.deepEqual(h.log.outside, []);
  });
});
