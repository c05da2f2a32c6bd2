// The teaching examples of examples/, as built into dist/examples/ by scripts/build-examples.mjs, in
// headless Chromium (one browser for the whole file). The single-file ones are opened from disk
// (file://, no server), as a teacher would double-click them. For each: every <attn-scope> draws what
// its view promises (cells, token labels, bars, panels) for the result it reports, a change of an
// attribute made from the page redraws it, no request leaves the disk, nothing is logged as an error.
// The notebook is rendered to HTML here by Debian's jupyter-nbconvert first.
// Screenshots go to test-output/examples-*.png (look at them).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, outDir, root } from '../../scripts/browser-harness.mjs';
import { loadDistRegistry } from '../../scripts/registry.mjs';

const dir = join(root, 'dist/examples');
// The comparison view draws one panel per scoring function of the registry (src/attnscope/registry.hpp).
const SCORE_COUNT = (await loadDistRegistry(join(root, 'dist'))).scores.length;
const url = (f) => pathToFileURL(join(dir, f)).href;
let browser, context;
const log = { requests: [], outside: [], consoleErrors: [], pageErrors: [] };

// Runs in every page before its own scripts: records the element's events. Listening in the capture
// phase on the document sees them whether or not they bubble or leave the shadow root. __attnCheck(el)
// inspects what a figure drew, by its view, against the result it reports.
function pageProbe(scoreCount) {
  window.__attnEvents = [];
  const index = (el) => Array.prototype.indexOf.call(document.querySelectorAll('attn-scope'), el);
  for (const type of ['attn-ready', 'attn-change', 'attn-error']) {
    document.addEventListener(type, (ev) => {
      const el = ev.composedPath()[0];
      if (!el || el.localName !== 'attn-scope') return;
      window.__attnEvents.push({ type, index: index(el), message: ev.detail && ev.detail.message ? String(ev.detail.message) : '' });
    }, true);
  }
  const texts = (nodes) => Array.from(nodes, (n) => n.textContent);
  window.__attnCheck = (el) => {
    const view = el.getAttribute('view') || 'heatmap';
    const out = { view, ok: false, why: '' };
    const root = el.shadowRoot;
    if (!root) { out.why = 'no open shadow root'; return out; }
    const all = (s) => root.querySelectorAll(s);
    const r = el.result;
    out.svgs = all('svg').length;
    if (view !== 'scaling') {
      if (!r) { out.why = 'no el.result'; return out; }
      out.nq = r.nq; out.nk = r.nk; out.heads = r.heads; out.dHead = Array.from(r.dHead || []);
      out.queryTokens = Array.from(r.queryTokens); out.keyTokens = Array.from(r.keyTokens);
      out.temperature = r.temperature; out.score = r.score;
      // Rows of the first head sum to 1 (the figure draws what attention computed).
      let worst = 0;
      for (let i = 0; i < r.nq; i++) {
        let s = 0;
        for (let j = 0; j < r.nk; j++) s += r.weights[i * r.nk + j];
        worst = Math.max(worst, Math.abs(s - 1));
      }
      out.rowSumError = worst;
    }
    const need = [];
    if (view === 'heatmap' || view === 'both') {
      out.cells = all('svg.heatmap g.cells rect').length;
      out.rowLabels = texts(all('svg.heatmap .row-labels .token-label'));
      out.colLabels = texts(all('svg.heatmap .col-labels .token-label'));
      out.fills = Array.from(all('svg.heatmap g.cells rect'), (c) => c.getAttribute('fill') || c.style.fill).join(' ');
      need.push(out.cells === r.nq * r.nk && out.cells > 0, out.rowLabels.length === r.nq, out.colLabels.length === r.nk);
    }
    if (view === 'lines' || view === 'both') {
      out.lineLabels = texts(all('svg g.tokens .token-label'));
      out.lines = all('svg g.lines path, svg g.lines line').length;
      need.push(out.lineLabels.length === r.nq + r.nk, out.lines > 0);
    }
    if (view === 'heads' || view === 'compare') {
      const imgs = Array.from(all('svg.multiples image.panel-img'));
      out.panels = imgs.length;
      out.panelTitles = texts(all('svg.multiples .panel-title'));
      out.fills = imgs.map((i) => i.getAttribute('href')).join(' ');
      need.push(imgs.length === (view === 'heads' ? r.heads : scoreCount), imgs.every((i) => /^data:image\/png;base64,/.test(i.getAttribute('href') || '')));
    }
    if (view === 'scaling') {
      out.series = all('svg.scaling path.series').length;
      out.dots = all('svg.scaling g.dots circle').length;
      need.push(out.series === 4, out.dots === 40);
    }
    if (view === 'cosine-dot' || view === 'distance') {
      out.bars = all('svg rect.bar').length;
      out.keyLabels = texts(all('svg .key-label'));
      out.stat = (root.querySelector('.teach-stat') || {}).textContent || '';
      out.fills = Array.from(all('svg rect.bar'), (b) => b.getAttribute('y') + ':' + b.getAttribute('height')).join(' ');
      need.push(out.bars === 3 * r.nk, out.keyLabels.length === r.nk, out.stat.length > 0);
    }
    if (view === 'hull') {
      out.values = all('svg.hull g.values g.v').length;
      out.outputs = all('svg.hull g.outputs g.o').length;
      out.hullPath = (root.querySelector('svg.hull path.hull-path') || { getAttribute: () => '' }).getAttribute('d') || '';
      out.fills = Array.from(all('svg.hull g.outputs g.o'), (o) => o.getAttribute('transform')).join(' ');
      need.push(out.values === r.nk, out.outputs === r.nq, out.hullPath.length > 0);
    }
    if (!need.length) { out.why = `unknown view ${view}`; return out; }
    out.ok = need.every(Boolean);
    if (!out.ok) out.why = 'incomplete drawing';
    return out;
  };
}

/** Opens a page of dist/examples and waits until every figure has reported attn-ready (or attn-error). */
async function openPage(file, viewport = { width: 1280, height: 900 }) {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  page.on('console', (msg) => { if (msg.type() === 'error') log.consoleErrors.push(`${file}: ${msg.text()}`); });
  page.on('pageerror', (e) => log.pageErrors.push(`${file}: ${e}`));
  await page.addInitScript(pageProbe, SCORE_COUNT);
  await page.goto(typeof file === 'string' && file.startsWith('file:') ? file : url(file));
  const n = await page.locator('attn-scope').count();
  assert.ok(n > 0, `${file} holds <attn-scope> figures`);
  await page.waitForFunction(() => customElements.get('attn-scope') !== undefined, null, { timeout: 30000 });
  return { page, n };
}

/** Brings figure k into view (figures draw when they scroll into view) and waits until it drew. */
async function drawn(page, k, timeout = 20000) {
  await page.evaluate((i) => document.querySelectorAll('attn-scope')[i].scrollIntoView({ block: 'center' }), k);
  await page.waitForFunction((i) => window.__attnCheck(document.querySelectorAll('attn-scope')[i]).ok, k, { timeout })
    .catch(() => {});   // the assertion below reports what was missing
  const report = await page.evaluate((i) => window.__attnCheck(document.querySelectorAll('attn-scope')[i]), k);
  const id = await page.evaluate((i) => document.querySelectorAll('attn-scope')[i].id || `#${i}`, k);
  assert.ok(report.ok, `figure ${id} (view ${report.view}) drew: ${report.why} ${JSON.stringify(report).slice(0, 600)}`);
  if (report.rowSumError !== undefined) assert.ok(report.rowSumError < 1e-4, `figure ${id}: rows of its weights sum to 1`);
  if (report.rowLabels) {
    // The labels are the result's tokens (shortened past 14 characters, "?" after a word not in the vocabulary).
    report.rowLabels.forEach((t, i) => assert.ok(t.startsWith(Array.from(report.queryTokens[i]).slice(0, 13).join('')),
      `figure ${id}: row label ${i} "${t}" shows token "${report.queryTokens[i]}"`));
  }
  return report;
}

/** Checks every figure of a page drew; returns their reports. */
async function allDrawn(page, n) {
  const reports = [];
  for (let k = 0; k < n; k++) reports.push(await drawn(page, k));
  return reports;
}

/** Sets attributes of figure k from the page, then waits until what it drew changed (by `key` of the report). */
async function redraw(page, k, attrs, key = 'fills') {
  const before = await drawn(page, k);
  await page.evaluate(([i, a]) => {
    const el = document.querySelectorAll('attn-scope')[i];
    for (const [name, value] of Object.entries(a)) el.setAttribute(name, value);
  }, [k, attrs]);
  await page.waitForFunction(([i, k0, old]) => {
    const r = window.__attnCheck(document.querySelectorAll('attn-scope')[i]);
    return r.ok && JSON.stringify(r[k0]) !== old;
  }, [k, key, JSON.stringify(before[key])], { timeout: 15000 }).catch(() => {});
  const after = await drawn(page, k);
  assert.notDeepEqual(after[key], before[key], `figure ${k} redrew after ${JSON.stringify(attrs)} (${key} changed)`);
  return { before, after };
}

const events = (page, type) => page.evaluate((t) => window.__attnEvents.filter((e) => e.type === t), type);
const shot = (page, name) => page.screenshot({ path: join(outDir, `examples-${name}.png`), fullPage: true });
const figShot = (page, k, name) => page.locator('attn-scope').nth(k).screenshot({ path: join(outDir, `examples-${name}.png`) });

before(async () => {
  for (const f of ['attnscope-element.js', 'lecture-note.html', 'slides.html', 'markdown-note.html', 'notebook.ipynb', 'reveal/reveal.js']) {
    if (!existsSync(join(dir, f))) throw new Error(`dist/examples/${f} is missing: run \`npm run build\` (scripts/build-examples.mjs; the element's script comes from the element build)`);
  }
  mkdirSync(outDir, { recursive: true });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  context = await browser.newContext();
  // Everything must come from disk: anything else is recorded and refused.
  await context.route('**/*', (route) => {
    const u = route.request().url();
    log.requests.push(u);
    if (u.startsWith('file:') || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    log.outside.push(u);
    return route.abort();
  });
  context.on('request', (req) => {
    const u = req.url();
    if (!u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:') && !log.outside.includes(u)) log.outside.push(u);
  });
});
after(async () => { if (browser) await browser.close(); });

describe('lecture note (file://)', () => {
  let page, n;
  test('opens from disk and every figure draws', async () => {
    ({ page, n } = await openPage('lecture-note.html', { width: 1280, height: 1000 }));
    assert.ok(n >= 6, `at least six figures (found ${n})`);
    const reports = await allDrawn(page, n);
    const views = reports.map((r) => r.view);
    for (const v of ['heatmap', 'scaling', 'cosine-dot', 'distance', 'heads', 'both']) assert.ok(views.includes(v), `a ${v} figure (views: ${views})`);
    const heads = reports.find((r) => r.view === 'heads');
    assert.equal(heads.heads, 4);
    assert.deepEqual(heads.dHead, [25, 25, 25, 25], 'four heads of 100/4 dimensions, as the caption says');
    const cross = await page.evaluate(() => document.getElementById('fig-cross').result);
    assert.deepEqual(cross.keyTokens, ['Kids', 'were', 'playing', 'soccer', 'near', 'the', 'garden', '.']);
    // The note's prose speaks of what the words mean: every word of its sentences is in the inlined vocabulary.
    for (const [k, r] of reports.entries()) {
      if (r.queryTokens) assert.deepEqual(await page.evaluate((i) => document.querySelectorAll('attn-scope')[i].result.queryTokenInfo.concat(document.querySelectorAll('attn-scope')[i].result.keyTokenInfo).filter((t) => t.oov).map((t) => t.text), k), [], `figure ${k}: no word outside the vocabulary`);
    }
    assert.equal((await page.evaluate(() => document.getElementById('fig-distance').result)).score, 'idw');
    assert.deepEqual(await events(page, 'attn-error'), [], 'no figure reported an error');
    await shot(page, 'lecture-note');
    for (const [k, id] of (await page.evaluate(() => Array.from(document.querySelectorAll('attn-scope'), (e) => e.id))).entries()) {
      await figShot(page, k, `lecture-${id}`);
    }
  });

  test('the page\'s own sentence box sets the query of the self-attention figures, and they redraw', async () => {
    const selfFigures = await page.evaluate(() => Array.from(document.querySelectorAll('attn-scope'))
      .map((e, i) => (e.hasAttribute('data-self') ? i : -1)).filter((i) => i >= 0));
    assert.ok(selfFigures.length >= 3);
    const sentence = 'Students read the note before the lecture.';
    await page.fill('#own-sentence', sentence);
    await page.click('#own-apply');
    for (const k of selfFigures) {
      await page.evaluate((i) => document.querySelectorAll('attn-scope')[i].scrollIntoView({ block: 'center' }), k);
      await page.waitForFunction((i) => {
        const r = window.__attnCheck(document.querySelectorAll('attn-scope')[i]);
        return r.ok && r.queryTokens[0] === 'Students';
      }, k, { timeout: 15000 }).catch(() => {});
      const r = await drawn(page, k);
      assert.deepEqual(r.queryTokens, ['Students', 'read', 'the', 'note', 'before', 'the', 'lecture', '.'], `figure ${k} took the typed sentence`);
    }
    await figShot(page, selfFigures[0], 'lecture-own-sentence');
    // Too long a sentence: each figure shows why inside itself, the status line says so, the other
    // figures keep working, and Reset brings the note's sentences back.
    const errorsBefore = (await events(page, 'attn-error')).length;
    await page.fill('#own-sentence', Array.from({ length: 80 }, () => 'word').join(' '));
    await page.click('#own-apply');
    await page.waitForFunction((n) => window.__attnEvents.filter((e) => e.type === 'attn-error').length >= n + 1, errorsBefore, { timeout: 15000 });
    assert.match(await page.textContent('#own-status'), /could not draw that sentence: .*64/);
    const message = await page.evaluate(() => {
      const el = document.getElementById('fig-weights');
      return el.shadowRoot.querySelector('.attn-error').textContent;
    });
    assert.match(message, /64/, 'the figure says what the limit is');
    await drawn(page, await page.evaluate(() => Array.prototype.indexOf.call(document.querySelectorAll('attn-scope'), document.getElementById('fig-cross'))));
    await figShot(page, selfFigures[0], 'lecture-own-sentence-too-long');
    await page.click('#own-reset');
    await page.waitForFunction(() => { const r = document.getElementById('fig-weights').result; return r && r.queryTokens[0] === 'The'; }, null, { timeout: 15000 });
    await drawn(page, selfFigures[0]);
    log.expectedErrors = (await events(page, 'attn-error')).length - errorsBefore;
  });

  test('attributes changed from the page redraw the figures (temperature, score, p, seed, keys)', async () => {
    const idx = async (id) => page.evaluate((i) => Array.prototype.indexOf.call(document.querySelectorAll('attn-scope'), document.getElementById(i)), id);
    const t = await redraw(page, await idx('fig-weights'), { temperature: '0.05' });
    assert.equal(t.after.temperature, 0.05);
    const s = await redraw(page, await idx('fig-cross'), { score: 'idw' });
    assert.equal(s.after.score, 'idw');
    await redraw(page, await idx('fig-distance'), { p: '6' });
    await redraw(page, await idx('fig-heads'), { seed: '2' });
    const kx = await redraw(page, await idx('fig-cross'), { keys: 'A dog slept under the table.' }, 'keyTokens');
    assert.deepEqual(kx.after.keyTokens, ['A', 'dog', 'slept', 'under', 'the', 'table', '.']);
    assert.equal((await events(page, 'attn-error')).length, log.expectedErrors ?? 0, 'no error but the too-long sentence\'s');
    assert.ok((await events(page, 'attn-change')).length > 0, 'attn-change fired');
  });

  test('printed, the note keeps every figure as a picture and drops the sentence box and the controls', async () => {
    await page.emulateMedia({ media: 'print' });
    const printed = await page.evaluate(() => ({
      form: getComputedStyle(document.getElementById('own')).display,
      figures: Array.from(document.querySelectorAll('attn-scope'), (el) => ({
        height: el.getBoundingClientRect().height,
        svgs: el.shadowRoot.querySelectorAll('svg').length,
        controls: getComputedStyle(el.shadowRoot.querySelector('.attn-controls')).display,
      })),
    }));
    assert.equal(printed.form, 'none');
    for (const [k, f] of printed.figures.entries()) {
      assert.ok(f.height > 100 && f.svgs > 0, `figure ${k} is printed (${JSON.stringify(f)})`);
      assert.equal(f.controls, 'none', `figure ${k}: no controls on paper`);
    }
    await shot(page, 'lecture-note-print');
    await page.pdf({ path: join(outDir, 'examples-lecture-note.pdf'), format: 'A4', printBackground: true });
    await page.emulateMedia({ media: 'screen' });
    await page.close();
  });
});

describe('reveal.js slides (file://)', () => {
  test('every slide\'s figure draws when shown, keyboard moves between slides, an attribute change redraws', async () => {
    const { page, n } = await openPage('slides.html', { width: 1280, height: 720 });
    await page.waitForFunction(() => window.Reveal && window.Reveal.isReady(), null, { timeout: 15000 });
    const slides = await page.evaluate(() => window.Reveal.getTotalSlides());
    assert.ok(n >= 3 && slides > n, `${slides} slides, ${n} with figures`);
    // Keyboard: → from the title goes to the first figure's slide.
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => window.Reveal.getIndices().h), 1);
    for (let s = 0; s < slides; s++) {
      await page.evaluate((i) => window.Reveal.slide(i), s);
      const k = await page.evaluate(() => {
        const el = window.Reveal.getCurrentSlide().querySelector('attn-scope');
        return el ? Array.prototype.indexOf.call(document.querySelectorAll('attn-scope'), el) : -1;
      });
      if (k >= 0) {
        await page.waitForFunction((i) => window.__attnCheck(document.querySelectorAll('attn-scope')[i]).ok, k, { timeout: 20000 }).catch(() => {});
        const r = await page.evaluate((i) => window.__attnCheck(document.querySelectorAll('attn-scope')[i]), k);
        assert.ok(r.ok, `slide ${s}: its figure drew (${r.why} ${JSON.stringify(r).slice(0, 400)})`);
        // Projector size: the figure's text follows --attn-font-size, at least 17 px once reveal.js has
        // scaled the slide to this 1280×720 screen; and the whole figure is on the slide, none cut off.
        const fit = await page.evaluate((i) => {
          const el = document.querySelectorAll('attn-scope')[i];
          const b = el.getBoundingClientRect();
          return { px: parseFloat(getComputedStyle(el).getPropertyValue('--attn-font-size')) * window.Reveal.getScale(),
            top: b.top, bottom: b.bottom, left: b.left, right: b.right, w: window.innerWidth, h: window.innerHeight };
        }, k);
        assert.ok(fit.px >= 17, `slide ${s}: figure text ${fit.px.toFixed(1)} px on screen`);
        assert.ok(fit.top >= 0 && fit.left >= 0 && fit.bottom <= fit.h && fit.right <= fit.w, `slide ${s}: the figure fits on the slide ${JSON.stringify(fit)}`);
      }
      await page.screenshot({ path: join(outDir, `examples-slides-${s}.png`) });
    }
    await page.evaluate(() => window.Reveal.slide(1));
    const k = await page.evaluate(() => Array.prototype.indexOf.call(document.querySelectorAll('attn-scope'), window.Reveal.getCurrentSlide().querySelector('attn-scope')));
    const t = await redraw(page, k, { temperature: '0.2' });
    assert.equal(t.after.temperature, 0.2);
    await page.screenshot({ path: join(outDir, 'examples-slides-redrawn.png') });
    assert.deepEqual(await events(page, 'attn-error'), []);
    await page.close();
  });
  test('keys the focused figure acts on stay in it: arrows move the heatmap\'s cell (or the slider), never the slide', async () => {
    const { page } = await openPage('slides.html', { width: 1280, height: 720 });
    await page.waitForFunction(() => window.Reveal && window.Reveal.isReady(), null, { timeout: 15000 });
    // What reaches the deck: every keydown the document sees (reveal.js listens there too).
    await page.evaluate(() => {
      window.__docKeys = [];
      document.addEventListener('keydown', (ev) => window.__docKeys.push(ev.key));
    });
    await page.evaluate(() => window.Reveal.slide(1));
    const k = await page.evaluate(() => Array.prototype.indexOf.call(document.querySelectorAll('attn-scope'), window.Reveal.getCurrentSlide().querySelector('attn-scope')));
    await page.waitForFunction((i) => window.__attnCheck(document.querySelectorAll('attn-scope')[i]).ok, k, { timeout: 20000 });
    const report = await page.evaluate((i) => window.__attnCheck(document.querySelectorAll('attn-scope')[i]), k);
    assert.ok(report.nq >= 3 && report.nk >= 4, `a heatmap with room to move: ${report.nq} × ${report.nk}`);
    const fig = page.locator('attn-scope').nth(k);
    const state = () => page.evaluate((i) => {
      const el = document.querySelectorAll('attn-scope')[i];
      const inside = el.shadowRoot.activeElement;
      const svg = el.shadowRoot.querySelector('svg.heatmap');
      // The cursor's cell, as the focus conveys it: the grid's active descendant (…-cell-<row>-<column>).
      const active = svg.getAttribute('aria-activedescendant') || '';
      const at = /-(\d+)-(\d+)$/.exec(active);
      return {
        slide: window.Reveal.getIndices().h,
        focusOnElement: document.activeElement === el,
        inside: inside ? `${inside.localName}.${inside.getAttribute('class') || inside.type || ''}` : null,
        cursorShown: svg.querySelector('rect.cursor').getAttribute('visibility') === 'visible',
        cell: at ? [Number(at[1]), Number(at[2])] : active,
        temperature: el.getAttribute('temperature'),
        docKeys: window.__docKeys.slice(),
      };
    }, k);
    await fig.locator('svg.heatmap').focus();
    const s0 = await state();
    assert.equal(s0.slide, 1);
    assert.ok(s0.focusOnElement && /^svg\.heatmap/.test(s0.inside), `the heatmap has the focus ${JSON.stringify(s0)}`);
    assert.ok(s0.cursorShown);
    assert.deepEqual(s0.cell, [0, 0]);
    const last = report.nk - 1;
    for (const [key, cell] of [['ArrowRight', [0, 1]], ['ArrowRight', [0, 2]], ['ArrowDown', [1, 2]], ['ArrowLeft', [1, 1]],
      ['ArrowUp', [0, 1]], ['End', [0, last]], ['Home', [0, 0]]]) {
      await page.keyboard.press(key);
      const s = await state();
      assert.deepEqual(s.cell, cell, `${key} moved the heatmap's cell`);
      assert.equal(s.slide, 1, `${key} on the heatmap left the deck on its slide`);
      assert.ok(s.focusOnElement && /^svg\.heatmap/.test(s.inside) && s.cursorShown, `focus stayed on the heatmap after ${key}: ${JSON.stringify(s)}`);
    }
    assert.deepEqual((await state()).docKeys, [], 'no key the heatmap acted on reached the document');
    // The temperature slider: its arrows change the temperature, not the slide.
    await fig.getByLabel(/Temperature/).focus();
    const before = (await state()).temperature;
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    const s2 = await state();
    assert.equal(s2.slide, 1, 'arrows on the slider left the deck on its slide');
    assert.ok(s2.focusOnElement && /^input/.test(s2.inside), `focus stayed on the slider: ${JSON.stringify(s2)}`);
    assert.notEqual(s2.temperature, before, 'the slider moved the temperature');
    assert.deepEqual(s2.docKeys, []);
    // With the focus out of the element, the arrow is the deck's again.
    await page.evaluate(() => document.activeElement.blur());
    await page.keyboard.press('ArrowRight');
    const s3 = await state();
    assert.equal(s3.slide, 2, 'with the focus outside the figure, → turns the slide');
    assert.deepEqual(s3.docKeys, ['ArrowRight']);
    assert.deepEqual(await events(page, 'attn-error'), []);
    await page.close();
  });
});


describe('Markdown note (markdown-it, file://)', () => {
  test('the figures pass through markdown-it, draw, and redraw on an attribute change', async () => {
    const html = readFileSync(join(dir, 'markdown-note.html'), 'utf8');
    assert.match(html, /<script src="attnscope-element\.js"><\/script>/, 'the script tag came through untouched');
    assert.equal((html.match(/<attn-scope /g) || []).length, 2, 'both figure tags came through');
    assert.doesNotMatch(html, /&lt;attn-scope\s/, 'the figure tags were not escaped');
    assert.doesNotMatch(html, /<p>\s*<attn-scope/, 'each figure is an HTML block of its own, not inline in a paragraph');
    const { page, n } = await openPage('markdown-note.html');
    assert.equal(n, 2);
    await allDrawn(page, n);
    await shot(page, 'markdown-note');
    const t = await redraw(page, 0, { temperature: '1' });
    assert.equal(t.after.temperature, 1);
    const q = await redraw(page, 1, { query: 'A small cat slept.' }, 'queryTokens');
    assert.deepEqual(q.after.queryTokens, ['A', 'small', 'cat', 'slept', '.']);
    await shot(page, 'markdown-note-redrawn');
    assert.deepEqual(await events(page, 'attn-error'), []);
    await page.close();
  });
});

describe('Jupyter notebook (jupyter-nbconvert, file://)', () => {
  test('nbconvert keeps the output cells\' script and elements, and the rendered page draws them', async () => {
    // Rendered next to a copy of the script, as a teacher would render it in the examples folder.
    const nbDir = join(outDir, 'examples-notebook');
    rmSync(nbDir, { recursive: true, force: true });
    mkdirSync(nbDir, { recursive: true });
    for (const f of ['notebook.ipynb', 'nbconvert-offline.html.j2', 'attnscope-element.js']) copyFileSync(join(dir, f), join(nbDir, f));
    let nbconvert;
    try {
      nbconvert = execFileSync('jupyter-nbconvert', ['--to', 'html', '--template-file', 'nbconvert-offline.html.j2',
        // nbconvert's default; stated because sanitising would strip both the <script> and the <attn-scope> tags.
        '--HTMLExporter.sanitize_html=False', 'notebook.ipynb'], { cwd: nbDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      if (e.code === 'ENOENT') throw new Error('jupyter-nbconvert is not installed: apt-get install jupyter-nbconvert (scripts/bootstrap.sh installs it)');
      throw e;
    }
    void nbconvert;
    const html = readFileSync(join(nbDir, 'notebook.html'), 'utf8');
    assert.match(html, /<script src="attnscope-element\.js"><\/script>/, 'the output cell\'s script survived');
    assert.equal((html.match(/<attn-scope /g) || []).length, 2);
    assert.doesNotMatch(html, /<script src="(file|https?):/, 'no head script pointing off the page (require.js, MathJax)');
    const { page, n } = await openPage(pathToFileURL(join(nbDir, 'notebook.html')).href);
    assert.equal(n, 2);
    const reports = await allDrawn(page, n);
    assert.deepEqual(reports.map((r) => r.view), ['heatmap', 'both']);
    await shot(page, 'notebook');
    const q = await redraw(page, 1, { query: 'The dog ran in the park.' }, 'queryTokens');
    assert.deepEqual(q.after.queryTokens, ['The', 'dog', 'ran', 'in', 'the', 'park', '.']);
    assert.deepEqual(await events(page, 'attn-error'), []);
    await page.close();
  });
});

describe('what every example loaded', () => {
  test('nothing but files from disk; no console or page errors', () => {
    assert.deepEqual(log.outside, [], 'no request left the disk');
    assert.ok(log.requests.some((u) => u.endsWith('/attnscope-element.js')), 'the element script was loaded from disk');
    assert.deepEqual(log.pageErrors, []);
    assert.deepEqual(log.consoleErrors, []);
  });
});
