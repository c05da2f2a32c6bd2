// A first visit to the demo on a classroom network, in headless Chromium: the network throttled to
// 20 Mbit/s down, 10 Mbit/s up and 40 ms latency (the DevTools protocol's network emulation), the cache
// empty and no service worker (a new browser context per load), and the time from navigation to
//   firstPlot  the page's own mark 'attnscope:first-render' (the first plots drawn)
//   full       the full vocabulary in use (body.ready: from then on every word has its 50,000-word vector)
// Median of --loads loads (default 5). With --web DIR the same loads of another build's dist/web are
// interleaved with this build's, so a before and an after are measured in one run under one load.
//   node bench/first-plot.mjs [--loads 5] [--web DIR] > bench/results/first-plot.json
// A duration is never asserted anywhere: this is a measurement.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { root, startServer } from '../scripts/browser-harness.mjs';
import { header, launch, median, option } from './browser.mjs';

const LOADS = Number(option('loads') ?? 5);
const other = option('web');
const NETWORK = { offline: false, latency: 40, downloadThroughput: (20e6 / 8), uploadThroughput: (10e6 / 8) };

if (!existsSync(join(root, 'dist/web/index.html'))) throw new Error('dist/web/ is missing: run `npm run build` first');

const load0 = loadavg();
const builds = [{ name: 'this build', server: await startServer() }];
if (other) builds.push({ name: other, server: await startServer(other) });
const browser = await launch();
const times = new Map(builds.map((b) => [b.name, { firstPlot: [], full: [] }]));
try {
  for (let i = 0; i < LOADS; i++) {
    for (const b of i % 2 ? [...builds].reverse() : builds) {
      const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, serviceWorkers: 'block' });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await cdp.send('Network.emulateNetworkConditions', NETWORK);
      await page.goto(b.server.url, { waitUntil: 'commit' });
      await page.waitForFunction(() => performance.getEntriesByName('attnscope:first-render').length > 0, null, { timeout: 120000, polling: 20 });
      await page.waitForSelector('body.ready', { timeout: 120000 });
      const t = await page.evaluate(() => ({
        firstPlot: performance.getEntriesByName('attnscope:first-render')[0].duration,
        full: performance.getEntriesByName('attnscope:full-vocabulary')[0]?.duration ?? performance.getEntriesByName('attnscope:first-render')[0].duration,
      }));
      const r = times.get(b.name);
      r.firstPlot.push(t.firstPlot);
      r.full.push(t.full);
      await context.close();
      process.stderr.write(`${b.name}: first plot ${Math.round(t.firstPlot)} ms, full vocabulary ${Math.round(t.full)} ms\n`);
    }
  }
} finally {
  await browser.close();
  for (const b of builds) await b.server.stop();
}
const ms = (x) => Math.round(x);
console.log(JSON.stringify({
  benchmark: 'a first visit to the demo at 20 Mbit/s down, 10 up, 40 ms latency, empty cache: navigation to the first plot and to the full vocabulary in use (medians)',
  ...header({ load: load0 }), loads: LOADS, network: NETWORK,
  results: builds.map((b) => {
    const r = times.get(b.name);
    return { build: b.name, firstPlot_ms: ms(median(r.firstPlot)), fullVocabulary_ms: ms(median(r.full)), firstPlot_all: r.firstPlot.map(ms), fullVocabulary_all: r.full.map(ms) };
  }),
}, null, 1));
