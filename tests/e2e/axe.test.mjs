// Accessibility: axe-core (the npm devDependency, node_modules/axe-core/axe.min.js) run in headless
// Chromium with its default rules and its experimental ones (e.g. label-content-name-mismatch), that
// is every rule but the WCAG AAA ones (the bar is AA: text contrast 4.5:1, not AAA's 7:1), over every page of the site once it has loaded and drawn: each page of
// scripts/pages.mjs (so a new page is covered the day it is listed there), the demo again with the
// trained model (#engine=model), the model page with its example loaded, and the <attn-scope> element
// in the teaching note of dist/examples/ and in a page of its own (the elements right under an h1, an h2), and showing a
// saved transformer (model="transformer"). Content that only shows after an
// interaction is checked after it: "Why this weight?" opened, a selection's summary, the demo's
// settings opened, the trained model's head picked; each page again at a phone's width (390 × 844),
// where figures scroll sideways. One browser, one context, one tab per page.
// Any violation fails, listed as rule id, impact and the targets it found.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { offlineContext, setup, settled, root } from '../../scripts/browser-harness.mjs';
import { PAGES } from '../../scripts/pages.mjs';

const AXE = readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');
let h, context, fileContext, tmp;

/**
 * Lets every figure draw: figures out of view are drawn when they scroll into view or when the page
 * is idle (web/shared/figures/base.js), so the page is walked from top to bottom, then back.
 */
async function drawEverything(p) {
  await p.evaluate(async () => {
    // A frame, or 200 ms if none comes (a page the browser is not painting gets no animation frames,
    // and an evaluation waiting for one would never end).
    const frame = () => new Promise((r) => { requestAnimationFrame(() => setTimeout(r, 0)); setTimeout(r, 200); });
    const idle = () => new Promise((r) => (window.requestIdleCallback ? requestIdleCallback(r, { timeout: 500 }) : setTimeout(r, 50)));
    for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight / 2) {
      scrollTo(0, y);
      await frame();
    }
    for (let k = 0; k < 4; k++) await idle();
    scrollTo(0, 0);
    await frame();
  });
}

/** Runs axe over the whole document; resolves the violations as { id, impact, help, targets }. */
async function axe(p) {
  if (!(await p.evaluate(() => !!window.axe))) await p.addScriptTag({ content: AXE });
  const t0 = Date.now();
  try { return await run(p); } finally { if (process.env.AXE_TIMES) console.log(`axe.run ${p.url().replace(/.*\//, '')}: ${Date.now() - t0} ms`); }
}
function run(p) {
  return p.evaluate(async () => {
    const rules = Object.fromEntries(window.axe.getRules().map((r) => [r.ruleId, { enabled: !r.tags.includes('wcag2aaa') }]));
    const res = await window.axe.run(document, { rules, resultTypes: ['violations'] });
    return res.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      targets: v.nodes.map((n) => `${n.target.join(' >>> ')}${n.any.concat(n.all, n.none).map((c) => ` [${c.message}]`).join('')}`),
    }));
  });
}

/** Fails with every violation listed: rule id, impact, count, and each target with axe's reason. */
function assertClean(violations, where) {
  const text = violations.map((v) => `  ${v.id} (${v.impact}) ×${v.targets.length}: ${v.help}\n${v.targets.map((t) => `    ${t}`).join('\n')}`).join('\n');
  assert.equal(violations.length, 0, `axe found violations on ${where}:\n${text}`);
}

/** The same page on a phone's screen (figures that no longer fit scroll sideways in their box). */
async function onPhone(p) {
  await p.setViewportSize({ width: 390, height: 844 });
  await p.evaluate(() => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 400); }));
  await drawEverything(p);
}

async function openPage(html, hash = '') {
  const p = h.watch(await context.newPage());
  await p.goto(h.server.url + html + hash);
  // Each page says what it shows once it has loaded (its entry's `ready`, scripts/pages.mjs).
  const { ready } = PAGES.find((x) => x.html === html);
  await p.waitForSelector('body.ready', { timeout: 60000 });
  if (ready) await p.waitForSelector(ready, { timeout: 60000 });
  await settled(p, 60000);
  await drawEverything(p);
  await settled(p, 60000);
  return p;
}

before(async () => {
  h = await setup();
  // The pages' Content-Security-Policy allows only their own scripts: axe is added by the test.
  context = await h.newContext({ bypassCSP: true });
  // The element's pages come from disk (file://): their own context, where no request may leave the machine.
  fileContext = await offlineContext(h.browser, { bypassCSP: true, viewport: { width: 1320, height: 1000 } });
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-axe-'));
});
after(async () => {
  await context?.close();
  await fileContext?.close();
  await h?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('axe-core: no violation on any page', () => {
  for (const { html } of PAGES) {
    test(`${html}, loaded and drawn`, async () => {
      const p = await openPage(html);
      try {
        assertClean(await axe(p), html);
        if (html === 'index.html') {
          // "Why this weight?" open (a click on a cell), a row selected (its summary), the settings opened.
          await p.locator('#figure-heatmap svg.heatmap g.cells rect').nth(1).click();
          await p.waitForSelector('#figure-why .why-scores tbody tr.current');
          await p.locator('#query-tokens .chip').nth(1).click();
          await p.click('#more-settings > summary');
          await settled(p);
          await drawEverything(p);
          assertClean(await axe(p), `${html} with a cell explained, a row selected and the settings open`);
        }
        await onPhone(p);
        assertClean(await axe(p), `${html} on a phone (390 × 844)`);
      } finally {
        await p.close();
      }
    });
  }

  test('index.html#engine=model: the trained model, loaded, then a head picked', async () => {
    const p = await openPage('index.html', '#engine=model');
    try {
      await p.waitForSelector('#figure-model-heads g.panel', { timeout: 60000 });
      await drawEverything(p);
      assertClean(await axe(p), 'index.html#engine=model');
      await p.locator('#figure-model-heads g.panel').nth(5).click();
      await settled(p);
      await drawEverything(p);
      assertClean(await axe(p), 'index.html#engine=model with another head picked');
    } finally {
      await p.close();
    }
  });

  test('<attn-scope model="transformer">: a saved decoder\'s views, a head re-scored and one knocked out', async () => {
    const made = h.scope.createModel({ kind: 'decoder', layers: 2, heads: 2, dModel: 8, dFF: 0, vocab: 4, maxTokens: 16, score: { '0.1': 'additive' }, seed: 2 });
    made.setTokens(['a', 'b', 'c', ' ']);
    const bytes = Buffer.from(made.save());
    made.dispose();
    await fileContext.route('http://models.attnscope.test/**', (route) => route.fulfill({ status: 200, body: bytes,
      headers: { 'content-type': 'application/octet-stream', 'access-control-allow-origin': '*' } }));
    copyFileSync(join(root, 'dist/attnscope-element.js'), join(tmp, 'attnscope-element.js'));
    writeFileSync(join(tmp, 'saved.html'), '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>A saved transformer</title>'
      + '<script src="attnscope-element.js"></script></head><body><main><h1>A model trained in the page</h1>\n'
      + '<attn-scope model="transformer" model-src="http://models.attnscope.test/saved.safetensors" query="abc abca" head="0.0" head-score="cosine" knock-out="1.1"></attn-scope>'
      + '\n</main></body></html>\n');
    const p = h.watch(await fileContext.newPage());
    try {
      await p.goto(pathToFileURL(join(tmp, 'saved.html')).href);
      await p.waitForFunction(() => { const el = document.querySelector('attn-scope'); el.flush(); return el.result || !el.shadowRoot.querySelector('.attn-error').hidden; }, null, { timeout: 60000 });
      assert.equal(await p.$eval('attn-scope', (el) => el.result?.kind), 'decoder');
      await drawEverything(p);
      assertClean(await axe(p), 'saved.html');
      await onPhone(p);
      assertClean(await axe(p), 'saved.html on a phone (390 × 844)');
    } finally {
      await p.close();
    }
  });

  test('<attn-scope>: the teaching note of dist/examples/ and the views it does not show', async () => {
    // The element's pages are opened from disk, as a teacher opens a note (no server). The note shows
    // the views heatmap, both, heads, compare, cosine-dot, distance, hull and scaling; a page of ours
    // the others, "Why this weight?" with a cell open among them.
    copyFileSync(join(root, 'dist/attnscope-element.js'), join(tmp, 'attnscope-element.js'));
    // The elements sit straight under the page's headings, as a host page puts them: the first right
    // after the h1, the second after an h2 (their titles take the level below: heading-order), a third
    // after a level-3 heading given by role=heading.
    const element = (v) => `<attn-scope view="${v}" query="The cat sat on the mat." keys="A kitten rested on the rug." cell="1,1" heads="2"`
      + ` projection="random" controls="score temperature mask" caption="The ${v} view"></attn-scope>`;
    writeFileSync(join(tmp, 'views.html'), '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Views</title>'
      + '<script src="attnscope-element.js"></script></head><body><main><h1>Every view</h1>\n'
      + `${element('why')}\n<h2>The lines view</h2>\n${element('lines')}\n<div role="heading" aria-level="3">Again</div>\n${element('heatmap')}`
      + '\n</main></body></html>\n');
    for (const url of [pathToFileURL(join(root, 'dist/examples/lecture-note.html')).href, pathToFileURL(join(tmp, 'views.html')).href]) {
      const p = h.watch(await fileContext.newPage());
      try {
        await p.goto(url);
        await p.waitForFunction(() => [...document.querySelectorAll('attn-scope')].every((el) => {
          el.flush();
          return el.result || el.getAttribute('view') === 'scaling' || !el.shadowRoot.querySelector('.attn-error').hidden;
        }), null, { timeout: 60000 });
        await drawEverything(p);
        if (url.endsWith('views.html')) {
          // What the rule checks: the titles under the h1 are h2s, under the h2 h3s, under the level-3 heading h4s.
          const tags = await p.evaluate(() => [...document.querySelectorAll('attn-scope')].map((el) => [...new Set([...el.shadowRoot.querySelectorAll('.fig-title')].map((t) => t.localName))].join()));
          assert.deepEqual(tags, ['h2', 'h3', 'h4']);
        }
        assertClean(await axe(p), url.replace(/.*\//, ''));
        // On a phone: our page (the note's figures are the demo's, checked on a phone above; the
        // note's many figures make each pass over it slow).
        if (url.endsWith('views.html')) {
          await onPhone(p);
          assertClean(await axe(p), `${url.replace(/.*\//, '')} on a phone (390 × 844)`);
        }
      } finally {
        await p.close();
      }
    }
  });
});
