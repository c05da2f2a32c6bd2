// Wraps the kernel benchmark's raw output (attnscope_bench, native and wasm) with the machine it ran
// on as bench/results/native.json and wasm-node.json, draws bench/results/attention.svg, then writes
// every generated table of the docs from bench/results/ (bench/tables.mjs).
//   node scripts/bench-report.mjs build/bench-native.json build/bench-wasm.json
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { execFileSync } from 'node:child_process';
import { writeTables } from '../bench/tables.mjs';

const [nativeFile, wasmFile] = process.argv.slice(2);
if (!nativeFile || !wasmFile) throw new Error('usage: node scripts/bench-report.mjs NATIVE.json WASM.json (the raw output of attnscope_bench)');
const cpu = cpus()[0]?.model ?? 'unknown';
const compiler = (cmd) => { try { return execFileSync(cmd, ['--version'], { encoding: 'utf8' }).split('\n')[0]; } catch { return 'unknown'; } };
const date = new Date().toISOString().slice(0, 10);
const runs = {
  native: { file: 'bench/results/native.json', raw: nativeFile, env: { cpu, cores: cpus().length, compiler: compiler('g++'), flags: '-O3 (CMake Release), x86-64 baseline: SIMD = SSE2, 4 lanes' } },
  'wasm-node': { file: 'bench/results/wasm-node.json', raw: wasmFile, env: { cpu, cores: cpus().length, compiler: compiler('em++'), node: process.version, flags: '-O3 -msimd128 -msse4.1 (xsimd sse4.1 lowered to wasm simd128), run with node --no-liftoff' } },
};
for (const r of Object.values(runs)) {
  r.cases = JSON.parse(readFileSync(r.raw, 'utf8'));
  writeFileSync(r.file, JSON.stringify({ date, ...r.env, cases: r.cases }, null, 1) + '\n');
}

// The plot: GFLOP/s of softmax(QKᵀ/√d)·V in node against n at d = 64 (bench/attention-node.mjs), one
// line per implementation, with the wasm peak of the kernel benchmark.
const peakCase = runs['wasm-node'].cases.find((c) => c.case === 'f32_peak_muladd');
const peak = peakCase ? peakCase.gflops : undefined;
if (existsSync('bench/results/attention-node.json')) {
  const a = JSON.parse(readFileSync('bench/results/attention-node.json', 'utf8'));
  const impls = [...new Set(a.results.map((r) => r.impl))];
  const pts = impls.map((im) => ({ im, pts: a.results.filter((r) => r.impl === im && r.d === 64).sort((p, q) => p.n - q.n) }));
  const ns = [...new Set(a.results.filter((r) => r.d === 64).map((r) => r.n))].sort((p, q) => p - q);
  const ymax = Math.max(peak || 0, ...a.results.map((r) => r.gflops)) * 1.1;
  const Wd = 720, Ht = 360, L = 56, R = 250, T = 24, B = 44;
  const xs = (n) => L + (ns.length > 1 ? (Math.log2(n) - Math.log2(ns[0])) / (Math.log2(ns.at(-1)) - Math.log2(ns[0])) : 0.5) * (Wd - L - R);
  const ys = (g) => Ht - B - (g / ymax) * (Ht - T - B);
  const colors = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00'];
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${Wd}" height="${Ht}" viewBox="0 0 ${Wd} ${Ht}" font-family="sans-serif" font-size="12">\n` +
    `<rect width="${Wd}" height="${Ht}" fill="white"/>\n` +
    `<text x="${L}" y="16" font-size="13">softmax(QKᵀ/√d)·V in node ${a.node}, d = 64, one thread: GFLOP/s (4n²d flops per call)</text>\n`;
  for (let g = 0; g <= ymax; g += ymax > 60 ? 20 : 10) svg += `<line x1="${L}" x2="${Wd - R}" y1="${ys(g)}" y2="${ys(g)}" stroke="#ddd"/><text x="${L - 6}" y="${ys(g) + 4}" text-anchor="end">${g}</text>\n`;
  for (const n of ns) svg += `<text x="${xs(n)}" y="${Ht - B + 16}" text-anchor="middle">${n}</text>\n`;
  svg += `<text x="${(L + Wd - R) / 2}" y="${Ht - 8}" text-anchor="middle">sequence length n (queries = keys)</text>\n`;
  if (peak) svg += `<line x1="${L}" x2="${Wd - R}" y1="${ys(peak)}" y2="${ys(peak)}" stroke="#999" stroke-dasharray="4 3"/><text x="${Wd - R + 6}" y="${ys(peak) + 4}" fill="#666">wasm SIMD128 mul+add peak</text>\n`;
  pts.forEach(({ im, pts: p }, i) => {
    if (!p.length) return;
    const c = colors[i % colors.length];
    svg += `<polyline fill="none" stroke="${c}" stroke-width="2" points="${p.map((r) => `${xs(r.n).toFixed(1)},${ys(r.gflops).toFixed(1)}`).join(' ')}"/>\n`;
    for (const r of p) svg += `<circle cx="${xs(r.n).toFixed(1)}" cy="${ys(r.gflops).toFixed(1)}" r="3" fill="${c}"/>\n`;
    svg += `<text x="${Wd - R + 6}" y="${T + 70 + 16 * i}" fill="${c}">${im}</text>\n`;
  });
  svg += `<text x="${Wd - R + 6}" y="${T + 80 + 16 * pts.length}" fill="#666" font-size="10">${a.cpu.slice(0, 32)}</text>\n</svg>\n`;
  writeFileSync('bench/results/attention.svg', svg);
}

const changed = writeTables();
console.log(`bench/results/native.json, wasm-node.json written; tables rewritten in ${changed.length ? changed.join(', ') : 'no doc (none changed)'}`);
