// The demo with the trained model in headless Chromium: keystroke → every layer and head redrawn.
// Types a sentence one key at a time into the demo with the model chosen (USE-Lite, computed in the
// page's worker, web/compute/model.js) and reads the page's own measures: "attnscope:model-update"
// (input event → the model's figures drawn; detail.timings: the worker's encode, surgery and flow)
// and "attnscope:model-frame" (→ the next frame painted). Then the same with one head re-scored by
// cosine and one knocked out (three encodes per keystroke). Prints JSON with every keystroke and the
// medians; scripts/bench.sh stores it as bench/results/model-page.json. Never asserted (shared, noisy machine).
//   node bench/model-page.mjs
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { root, startServer } from '../scripts/browser-harness.mjs';
import { header, launch, median } from './browser.mjs';

if (!existsSync(join(root, 'dist/web/use-lite.bin'))) throw new Error('dist/web/use-lite.bin is missing: run `npm run build` first');
const load = loadavg();
const TEXT = 'The animal didn\'t cross the street because it was too tired';
const server = await startServer();
const browser = await launch();
const out = { ...header({ load }), sentence: TEXT, runs: {} };
try {
  for (const [name, hash] of [['trained', '#engine=model&q=A'], ['surgery', '#engine=model&q=A&head-score=cosine&model-head=0.1&knock-out=1.2']]) {
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    await page.goto(server.url + hash);
    await page.waitForSelector('#figure-model-heads g.panel', { timeout: 60000 });
    await page.focus('#query');
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    const keys = [];
    for (const ch of TEXT) {
      await page.evaluate(() => performance.clearMeasures());
      await page.keyboard.type(ch);
      const m = await page.waitForFunction(() => {
        const f = performance.getEntriesByName('attnscope:model-frame');
        const u = performance.getEntriesByName('attnscope:model-update');
        return f.length && u.length ? { update: u.at(-1).duration, frame: f.at(-1).duration, timings: u.at(-1).detail.timings } : null;
      }, null, { timeout: 30000 }).then((h) => h.jsonValue());
      keys.push(m);
    }
    const pick = (f) => median(keys.map(f));
    out.runs[name] = {
      keystrokes: keys.length,
      medianMs: { keyToDrawn: pick((k) => k.update), keyToFrame: pick((k) => k.frame), workerTotal: pick((k) => k.timings.totalMs),
        encode: pick((k) => k.timings.encodeMs), surgery: pick((k) => k.timings.surgeryMs), flow: pick((k) => k.timings.flowMs) },
      keys,
    };
    await context.close();
  }
} finally {
  await browser.close();
  await server.stop();
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
