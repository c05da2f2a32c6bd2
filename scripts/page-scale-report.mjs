// Renders bench/results/page-scale.json (bench/page-scale.mjs: long documents in the demo) as the
// docs/benchmarks.md's table between the PAGE-SCALE markers.   node scripts/page-scale-report.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const r = JSON.parse(readFileSync('bench/results/page-scale.json', 'utf8'));
const ms = (x) => (x === null || x === undefined ? '–' : x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString('en'));
let out = `Long documents in the demo, measured ${r.date} with \`node bench/page-scale.mjs\` in ${r.browser} (headless, software `
  + `rendering, ${r.viewport}) on ${r.cpu} (${r.cores} cores, load average ${r.loadavg ? r.loadavg[0].toFixed(1) : r.load_average} while it ran: upper bounds for a quiet machine); `
  + `medians after ${r.warmup_ms / 1000} s of warm-up; the wasm runs in the page's module worker.\n\n`
  + '| what | runs | median ms | p90 ms | notes |\n|---|--:|--:|--:|---|\n';
for (const x of r.results) {
  const runs = x.runs ?? x.frames ?? x.keystrokes ?? '';
  let notes = '';
  if (x.longtasks_per_paste !== undefined) notes = `${x.longtasks_per_paste} long tasks per paste, longest ${ms(x.longtask_max_ms)} ms`;
  if (x.per_figure_median_ms) notes = Object.entries(x.per_figure_median_ms).filter(([, v]) => v >= 1).map(([k, v]) => `${k} ${ms(v)}`).join(', ');
  if (x.drawn !== undefined) notes = `${x.drawn} drawn, ${x.superseded} superseded by a newer keystroke`;
  out += `| ${x.name} | ${runs} | ${ms(x.median_ms)} | ${ms(x.p90_ms)} | ${notes} |\n`;
}
const readme = readFileSync('docs/benchmarks.md', 'utf8');
const re = /(<!-- PAGE-SCALE:START -->\n)[\s\S]*?(<!-- PAGE-SCALE:END -->)/;
if (!re.test(readme)) throw new Error('docs/benchmarks.md lacks the PAGE-SCALE markers');
writeFileSync('docs/benchmarks.md', readme.replace(re, (_, a, b) => a + out + b));
console.log(out);
