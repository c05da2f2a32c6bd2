// Wraps raw benchmark output with the machine it ran on, writes bench/results/*.json, and renders
// the README's benchmark table (between the BENCH markers) from them.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { execFileSync } from 'node:child_process';

const [nativeFile, wasmFile] = process.argv.slice(2);
const cpu = cpus()[0]?.model ?? 'unknown';
const compiler = (cmd) => { try { return execFileSync(cmd, ['--version'], { encoding: 'utf8' }).split('\n')[0]; } catch { return 'unknown'; } };
const date = new Date().toISOString().slice(0, 10);
const runs = {
  native: { file: 'bench/results/native.json', raw: nativeFile, env: { cpu, cores: cpus().length, compiler: compiler('g++'), flags: '-O3 (CMake Release), x86-64 baseline: SIMD = SSE2, 4 lanes' } },
  'wasm-node': { file: 'bench/results/wasm-node.json', raw: wasmFile, env: { cpu, cores: cpus().length, compiler: compiler('em++'), node: process.version, flags: '-O3 -msimd128 -msse4.1 (xsimd sse4.1 lowered to wasm simd128)' } },
};
for (const r of Object.values(runs)) {
  r.cases = JSON.parse(readFileSync(r.raw, 'utf8'));
  writeFileSync(r.file, JSON.stringify({ date, ...r.env, cases: r.cases }, null, 1) + '\n');
}

// Table: for each case and size, median µs of scalar and simd and the ratio, native and wasm.
const key = (c) => `${c.case}|${c.nq}x${c.nk}x${c.d}`;
const rows = new Map();
for (const [name, r] of Object.entries(runs)) {
  for (const c of r.cases) {
    const k = key(c);
    if (!rows.has(k)) rows.set(k, { case: c.case, size: `${c.nq}×${c.nk}, d=${c.d}` });
    rows.get(k)[`${name}-${c.variant}`] = c.median_us;
  }
}
const fmt = (x) => (x === undefined ? '–' : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
const ratio = (a, b) => (a && b ? `${(a / b).toFixed(1)}×` : '–');
let table = '| kernel | nq×nk, d | native scalar µs | native simd µs | speed-up | wasm scalar µs | wasm simd µs | speed-up |\n|---|---|--:|--:|--:|--:|--:|--:|\n';
for (const r of rows.values()) {
  table += `| \`${r.case}\` | ${r.size} | ${fmt(r['native-scalar'])} | ${fmt(r['native-simd'])} | ${ratio(r['native-scalar'], r['native-simd'])} | ${fmt(r['wasm-node-scalar'])} | ${fmt(r['wasm-node-simd'])} | ${ratio(r['wasm-node-scalar'], r['wasm-node-simd'])} |\n`;
}
const env = `Measured ${date} on ${cpu} (${cpus().length} cores, shared and noisy: compare the ratios within a row, which come from one run). ` +
  `Native: ${runs.native.env.compiler}, ${runs.native.env.flags}. Wasm: ${runs['wasm-node'].env.compiler}, node ${process.version}, ${runs['wasm-node'].env.flags}. ` +
  'Medians of 11 batches; reproduce with `npm run bench` (results in `bench/results/*.json`).\n';
// attend() in node and the package sizes, when bench.sh recorded them.
let extra = '';
if (existsSync('bench/results/attend-node.json')) {
  const a = JSON.parse(readFileSync('bench/results/attend-node.json', 'utf8'));
  extra += `\n\`attend()\` on a 12-word sentence pair in node ${a.node} (whole call: tokenize, embed, score, softmax, copy out), median of ${a.results[0].iterations} calls:\n\n| options | median ms | p90 ms |\n|---|--:|--:|\n`;
  for (const r of a.results) extra += `| ${r.name} | ${r.median_ms.toFixed(3)} | ${r.p90_ms.toFixed(3)} |\n`;
}
if (existsSync('bench/results/page.json')) {
  const pg = JSON.parse(readFileSync('bench/results/page.json', 'utf8'));
  const ms = (x) => (x === null || x === undefined ? '–' : x.toFixed(1));
  extra += `\nThe demo in ${pg.browser} (headless, software rendering, ${pg.viewport}), after ${pg.warmup_ms / 1000} s of typing to warm up; ` +
    'update = input event to plots redrawn (DOM updated), paint = the browser\'s style, layout and paint after it; medians of ' +
    `${pg.keystrokes} keystrokes (\`node bench/page.mjs\`):\n\n| sentence | tokens drawn | update median ms | update p90 ms | paint median ms |\n|---|--:|--:|--:|--:|\n`;
  for (const r of pg.results.filter((x) => x.tokensAsked)) {
    extra += `| ${r.tokensAsked} tokens typed | ${r.tokensShown} | ${ms(r.update_median_ms)} | ${ms(r.update_p90_ms)} | ${ms(r.paint_median_ms)} |\n`;
  }
  const fr = pg.results.find((x) => x.first_render_ms !== undefined);
  if (fr) extra += `\nFirst render ${Math.round(fr.first_render_ms)} ms after navigation (module, 5.6 MB vocabulary from a local server, plots).\n`;
}
if (existsSync('bench/results/dist-sizes.json')) {
  const d = JSON.parse(readFileSync('bench/results/dist-sizes.json', 'utf8')).files;
  extra += '\nPackage files (bytes):\n\n| file | raw | gzip |\n|---|--:|--:|\n';
  for (const [f, v] of Object.entries(d)) if (!f.endsWith('.d.ts')) extra += `| \`${f}\` | ${v.raw.toLocaleString('en')} | ${v.gzip.toLocaleString('en')} |\n`;
}
table += extra;
const readme = 'README.md';
if (existsSync(readme)) {
  const text = readFileSync(readme, 'utf8');
  const re = /(<!-- BENCH:START -->\n)[\s\S]*?(<!-- BENCH:END -->)/;
  if (re.test(text)) writeFileSync(readme, text.replace(re, `$1${env}\n${table}$2`));
}
console.log(env + '\n' + table);
