// DOM writes of one keystroke in the demo's short-text plots (issue 11), counted, not timed: a
// MutationObserver on the page counts the attribute writes (by name) and child-list changes under the
// SVG heatmap and the line view for keystrokes that keep the token count and that add or remove one.
// Unlike the timings of page.mjs the counts do not depend on how busy the machine is.
//
//   node bench/page-writes.mjs [--web DIR] [--tokens N]   (default 40 tokens; DIR: another build's dist/web)
import { root, startServer } from '../scripts/browser-harness.mjs';
import { launch, option } from './browser.mjs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const webDir = option('web');
const n = Number(option('tokens') ?? 40);
if (!webDir && !existsSync(join(root, 'dist/web/index.html'))) throw new Error('dist/web/ is missing: run `npm run build` first');

const words = 'the quick brown fox jumps over a lazy dog while seven small birds sing in the old tree by the river'.split(' ');
const text = Array.from({ length: n - 1 }, (_, i) => words[i % words.length]).join(' ') + '.';
const PLOTS = { heatmap: '#figure-heatmap svg.heatmap', lines: '#figure-lines svg.lineview' };

const server = await startServer(webDir);
const browser = await launch();
const out = { tokens: n, web: webDir ?? 'dist/web', keystrokes: [] };
try {
  const page = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
  await page.goto(server.url);
  await page.waitForSelector('body.ready', { timeout: 30000 });
  const settle = async () => {
    await page.waitForFunction(() => !document.body.classList.contains('computing'), null, { timeout: 30000 });
    await page.waitForTimeout(400);   // the figures drawn after the frame, too
  };
  await page.fill('#keys', '');
  await page.fill('#query', `${text} an`);
  await page.focus('#query');
  await page.keyboard.press('End');
  await settle();
  // "an" → "and" → "an" keep the count; " x" adds a token, Backspace removes it.
  for (const [key, what] of [['d', 'same count'], ['Backspace', 'same count'], ['Space', 'same count'], ['x', 'adds a token'], ['Backspace', 'removes a token']]) {
    await page.evaluate((plots) => {
      const counts = {};
      const svgs = Object.entries(plots).map(([name, sel]) => [name, document.querySelector(sel)]);
      const count = (records) => {
        for (const r of records) {
          const hit = svgs.find(([, svg]) => svg && svg.contains(r.target));
          if (!hit) continue;
          const k = `${hit[0]} ${r.type === 'attributes' ? `@${r.attributeName}` : r.type}`;
          counts[k] = (counts[k] || 0) + 1;
        }
      };
      window.__writes = { counts, count, observer: new MutationObserver(count) };
      window.__writes.observer.observe(document.body, { subtree: true, attributes: true, childList: true, characterData: true });
    }, PLOTS);
    await page.keyboard.press(key);
    await settle();
    const counts = await page.evaluate(() => {
      const w = window.__writes;
      w.count(w.observer.takeRecords());   // the records not delivered yet count too
      w.observer.disconnect();
      return w.counts;
    });
    const tokens = await page.evaluate(() => document.querySelectorAll('#query-tokens .chip').length);
    const total = (prefix) => Object.entries(counts).filter(([k]) => k.startsWith(prefix)).reduce((s, [, v]) => s + v, 0);
    out.keystrokes.push({ key, what, tokens, heatmap: total('heatmap '), lines: total('lines '),
      detail: Object.fromEntries(Object.entries(counts).sort()) });
  }
} finally {
  await browser.close();
  await server.stop();
}
console.log(JSON.stringify(out, null, 1));
