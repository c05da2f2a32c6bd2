// The first screen (issue 11): at 1366×768, 1440×900 and 1920×1080 the heatmap is on the first screen,
// beside the sentences and the controls, and the line view too where it fits; on a 390×844 phone
// the heatmap is within the first screen and a half; no page scrolls sideways. Asserted with
// bounding boxes; screenshots of each size go to test-output/ (look at them).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setup, outDir } from '../../scripts/browser-harness.mjs';

let h;
before(async () => { h = await setup(); });
after(async () => { if (h) await h.close(); });

const SIZES = [
  { name: 'laptop-1366x768', width: 1366, height: 768, screens: 1, lines: true },
  { name: 'laptop-1440x900', width: 1440, height: 900, screens: 1, lines: true },
  { name: 'desktop-1920x1080', width: 1920, height: 1080, screens: 1, lines: true },
  { name: 'phone-390x844', width: 390, height: 844, screens: 1.5, lines: false, mobile: true },
];
// The presets and a 30-token sentence: the heatmap must fit for each.
const SENTENCES = [
  { name: 'default', hash: '' },
  { name: 'preset-animal', hash: '#q=The+animal+didn%27t+cross+the+street+because+it+was+too+tired.' },
  { name: 'thirty-tokens', hash: '#q=' + encodeURIComponent('When the old fisherman finally returned to the quiet harbour at dawn, his small boat was heavy with silver fish and stories for the children.') },
];

/** Boxes in page coordinates (scrolled to the top), and the page's scrollable width. */
async function measure(page) {
  await page.evaluate(() => window.scrollTo(0, 0));
  return page.evaluate(() => {
    const box = (sel) => {
      const el = document.querySelector(sel);
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left + scrollX, right: r.right + scrollX, width: r.width, height: r.height };
    };
    return {
      heatmap: box('#figure-heatmap svg.heatmap'),
      heatmapBody: box('#figure-heatmap .fig-body'),
      // The plot's scale on screen (drawn width / natural width): its 11 px labels appear at 11 × this.
      heatmapScale: (() => {
        const svg = document.querySelector('#figure-heatmap svg.heatmap');
        return svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      })(),
      heatmapScrolls: (() => {
        const b = document.querySelector('#figure-heatmap .fig-body');
        return b.scrollWidth > b.clientWidth + 1;
      })(),
      scrollHint: (() => {
        const p = document.querySelector('#figure-heatmap .scroll-hint');
        return p && !p.hidden && p.getBoundingClientRect().height > 0 ? p.textContent : null;
      })(),
      heatmapFig: box('#figure-heatmap'),
      lines: box('#figure-lines svg.lineview'),
      query: box('#query'),
      score: box('#score'),
      temperature: box('#temperature'),
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      // Every element wider than the page (a plot may scroll inside its own box, which says so).
      overflowing: [...document.querySelectorAll('body *')].filter((el) => {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.right <= document.documentElement.clientWidth + 0.5) return false;
        for (let p = el.parentElement; p; p = p.parentElement) {
          const o = getComputedStyle(p).overflowX;
          if (o === 'auto' || o === 'scroll' || o === 'hidden') return false;
        }
        return true;
      }).map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className.baseVal ?? el.className}`).slice(0, 5),
    };
  });
}

for (const size of SIZES) {
  describe(`${size.width}×${size.height}`, () => {
    let context, page;
    before(async () => {
      context = await h.newContext({ viewport: { width: size.width, height: size.height }, isMobile: !!size.mobile, hasTouch: !!size.mobile, deviceScaleFactor: 1 });
    });
    after(async () => { await context.close(); });

    for (const s of SENTENCES) {
      test(`${s.name}: the heatmap is within the first ${size.screens === 1 ? 'screen' : `${size.screens} screens`}; nothing scrolls sideways`, async () => {
        if (!page) page = await h.open(context, s.hash);
        else {
          await page.goto(h.server.url + s.hash);
          await page.reload();
          await page.waitForSelector('body.ready', { timeout: 30000 });
        }
        await page.waitForSelector('#figure-heatmap svg.heatmap g.cells rect');
        const m = await measure(page);
        await page.screenshot({ path: join(outDir, `layout-${size.name}-${s.name}.png`) });
        const limit = size.height * size.screens;
        assert.ok(m.heatmap.top >= 0 && m.heatmap.bottom <= limit,
          `heatmap from ${m.heatmap.top} to ${m.heatmap.bottom} px, first ${limit} px`);
        // Legible labels: never drawn under 0.8 of their size (11 px → 8.8 px), on a phone too.
        assert.ok(m.heatmapScale >= 0.8 - 1e-3, `the heatmap is drawn at ${m.heatmapScale.toFixed(2)} of its size`);
        if (m.heatmapScrolls) {
          // Only a phone's long sentence may be wider than the screen: it scrolls in its own box, which says so.
          assert.ok(size.width < 1000, 'the heatmap scrolls sideways on a wide screen');
          assert.match(m.scrollHint ?? '', /scroll the heatmap sideways/, 'a heatmap that scrolls sideways says so');
          assert.ok(m.heatmapBody.right <= size.width && m.heatmapBody.left >= 0, `heatmap box from x ${m.heatmapBody.left} to ${m.heatmapBody.right}`);
        } else {
          assert.equal(m.scrollHint, null, 'the scroll hint shows only when the heatmap scrolls');
          assert.ok(m.heatmap.right <= size.width && m.heatmap.left >= 0, `heatmap from x ${m.heatmap.left} to ${m.heatmap.right}`);
        }
        if (s.name === 'thirty-tokens' && size.mobile) assert.ok(m.heatmapScrolls, 'the 30-token sentence is wider than a phone at 0.8');
        assert.ok(m.heatmap.width >= Math.min(260, size.width - 60), `the heatmap is not squashed: ${m.heatmap.width} px wide`);
        assert.equal(m.scrollWidth, m.clientWidth, `the page scrolls sideways: ${m.overflowing.join(', ')}`);
        assert.deepEqual(m.overflowing, []);
        if (size.width >= 1000) {
          // Beside the inputs and controls: the heatmap's column starts right of the text box, and the
          // score and temperature controls are on the first screen too.
          assert.ok(m.heatmap.left >= m.query.right, `heatmap at x ${m.heatmap.left}, text box ends at ${m.query.right}`);
          assert.ok(m.score.bottom <= size.height && m.temperature.bottom <= size.height, 'score and temperature on the first screen');
        } else {
          assert.ok(m.query.bottom <= size.height, 'the text box is on the first screen');
        }
        if (size.lines && s.name === 'default') {
          assert.ok(m.lines.bottom <= size.height && m.lines.right <= size.width, `line view at ${JSON.stringify(m.lines)}`);
        }
      });
    }

    test('dark theme, first screen (screenshot)', async () => {
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.goto(h.server.url + '#q=The+cat+sat+on+the+mat.&k=A+kitten+rested+on+the+rug.&rows=1-2&cols=1');
      await page.reload();
      await page.waitForSelector('body.ready', { timeout: 30000 });
      await page.waitForSelector('#figure-selection .sum-value', { timeout: 5000 }).catch(() => {});
      const m = await measure(page);
      await page.screenshot({ path: join(outDir, `layout-${size.name}-dark-selection.png`) });
      assert.ok(m.heatmap.bottom <= size.height * size.screens);
      assert.equal(m.scrollWidth, m.clientWidth);
      assert.ok(await page.locator('#figure-selection .sum-value').count() > 0, 'the selection from the link is summarised');
      await page.emulateMedia({ colorScheme: 'light' });
    });
  });
}

test('no console error, no page error', () => {
  assert.deepEqual(h.log.pageErrors, []);
  assert.deepEqual(h.log.consoleErrors, []);
});
