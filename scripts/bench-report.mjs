// Wraps raw benchmark output with the machine it ran on, writes bench/results/*.json, and renders
// the benchmark tables of docs/benchmarks.md (between the BENCH markers, and the lab's) and the limits
// table of docs/limits.md from them.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { execFileSync } from 'node:child_process';

/** Where the generated tables live. */
const BENCHMARKS = 'docs/benchmarks.md';
const LIMITS = 'docs/limits.md';

// The limits table (docs/limits.md), from bench/limits.mjs.
function renderLimits(readme) {
  if (!existsSync('bench/results/limits.json') || !existsSync(readme)) return;
  const l = JSON.parse(readFileSync('bench/results/limits.json', 'utf8'));
  let t = `Measured ${l.date.slice(0, 10)} with \`node bench/limits.mjs\` (node ${l.node}, ${l.cpu}, ${l.cores} cores, ` +
    `load average ${l.loadavg ? l.loadavg[0] : '?'} while it ran: the figures are upper bounds for a quiet machine). ` +
    'Median of 3 calls after a warm-up call unless the case says one run; a refused call is refused before any allocation or work.\n\n' +
    '| call | ms | outcome |\n|---|--:|---|\n';
  for (const c of l.cases) {
    const outcome = c.refused ? `refused: ${c.refused.replace(/\|/g, '\\|').slice(0, 140)}${c.refused.length > 140 ? '…' : ''}` : 'computed';
    t += `| ${c.name} | ${c.ms.toLocaleString('en', { maximumFractionDigits: c.ms < 10 ? 2 : 0 })} | ${outcome} |\n`;
  }
  const text = readFileSync(readme, 'utf8');
  const re = /(<!-- LIMITS:START -->\n)[\s\S]*?(<!-- LIMITS:END -->)/;
  if (re.test(text)) writeFileSync(readme, text.replace(re, `$1${t}$2`));
}

// The lab's tables (docs/benchmarks.md, "The lab"), from bench/lab.mjs: ms per training step, and held-out accuracy
// per scoring function and task.
function renderLab(readme) {
  if (!existsSync('bench/results/lab.json') || !existsSync(readme)) return;
  const l = JSON.parse(readFileSync('bench/results/lab.json', 'utf8'));
  const h = l.head;
  let t = `Measured ${l.date.slice(0, 10)} with \`node bench/lab.mjs\` (node ${l.node}, ${l.cpu}, ${l.cores} cores, load average ` +
    `${l.loadavg[0]} while it ran). One step = one batch of ${h.batch} sentences (${h.tokens_per_batch} words on average) of the ` +
    `previous-word task, d = ${h.dIn} word vectors + ${h.dPos} positional features → ${h.dHead}: forward, backward, Adam. ` +
    `Median over ${l.batches} batches of ${l.steps_per_batch} steps after ${l.warmup_ms / 1000} s of warm-up.\n\n` +
    '| case | ms per step | CPU ms per step |\n|---|--:|--:|\n';
  for (const c of l.steps) t += `| ${c.case} | ${c.ms_per_step.toFixed(2)} | ${c.cpu_ms_per_step.toFixed(2)} |\n`;
  t += `\nms per step of the same task by scoring function (SIMD wasm): ${l.per_score.map((p) => `${p.score} ${p.ms_per_step.toFixed(2)}`).join(', ')}.\n`;
  const rules = [...new Set(l.accuracy.map((a) => a.rule))];
  const scores = [...new Set(l.accuracy.map((a) => a.score))];
  const first = l.accuracy[0];
  t += `\nHeld-out accuracy (argmax on the target) after ${first.steps} steps from seed ${first.seed}, learning rate ${h.learningRate}; ` +
    'in brackets the first step (of every 25) at which it reached 90%, – if it did not. Chance: ' +
    rules.map((r) => `${r} ${(100 * l.accuracy.find((a) => a.rule === r).chance).toFixed(0)}%`).join(', ') +
    ` (held-out target rows: ${rules.map((r) => `${r} ${l.accuracy.find((a) => a.rule === r).held_out_rows}`).join(', ')}; ` +
    'the pronoun set is tiny: read its column as anecdote).\n\n' +
    `| score | ${rules.join(' | ')} |\n|---|${rules.map(() => '--:').join('|')}|\n`;
  for (const s of scores) {
    t += `| ${s} | ${rules.map((r) => {
      const a = l.accuracy.find((x) => x.rule === r && x.score === s);
      return `${(100 * a.accuracy).toFixed(1)}% (${a.steps_to_90 ?? '–'})`;
    }).join(' | ')} |\n`;
  }
  const text = readFileSync(readme, 'utf8');
  const re = /(<!-- LAB:START -->\n)[\s\S]*?(<!-- LAB:END -->)/;
  if (re.test(text)) writeFileSync(readme, text.replace(re, `$1${t}$2`));
}

// The lab's comparison tables (docs/benchmarks.md, "The lab's comparison"), from bench/lab-compare.mjs.
function renderLabCompare(readme) {
  if (!existsSync('bench/results/lab-compare.json') || !existsSync(readme)) return;
  const l = JSON.parse(readFileSync('bench/results/lab-compare.json', 'utf8'));
  const cell = (r) => `${(100 * r.accuracy).toFixed(1)}% (${r.steps_to_90 ?? '–'})`;
  const scores = l.by_rule[0].rows.map((r) => r.score);
  let t = `Computed ${l.date.slice(0, 10)} with \`node bench/lab-compare.mjs\` (node ${l.node}, ${l.isa}): the page's Compare with its ` +
    `defaults, ${l.steps} steps per function, learning rate ${l.learning_rate}, held-out accuracy measured every ${l.eval_every} steps. ` +
    'Each cell: held-out accuracy after the last step, and in brackets the first step at which it reached 90% (– not reached). ' +
    'The numbers are deterministic for a build: the page shows the same ones for the same seed.\n\n' +
    `Every rule, seed 1 (chance: ${l.by_rule.map((r) => `${r.rule} ${(100 * r.chance).toFixed(0)}%`).join(', ')}; held-out target words: ` +
    `${l.by_rule.map((r) => `${r.rule} ${r.held_out_rows}`).join(', ')}):\n\n` +
    `| score | ${l.by_rule.map((r) => r.rule).join(' | ')} |\n|---|${l.by_rule.map(() => '--:').join('|')}|\n`;
  for (const s of scores) t += `| ${s} | ${l.by_rule.map((r) => cell(r.rows.find((x) => x.score === s))).join(' | ')} |\n`;
  t += `\nThe previous-word rule from ${l.by_seed.length} seeds (how much the order moves with the seed alone):\n\n` +
    `| score | ${l.by_seed.map((r) => `seed ${r.seed}`).join(' | ')} |\n|---|${l.by_seed.map(() => '--:').join('|')}|\n`;
  for (const s of scores) t += `| ${s} | ${l.by_seed.map((r) => cell(r.rows.find((x) => x.score === s))).join(' | ')} |\n`;
  t += `\nWhat the page writes under the table for seed 1 (previous word):\n\n${l.reading_seed_1_previous.map((p) => `> ${p}`).join('\n>\n')}\n`;
  const text = readFileSync(readme, 'utf8');
  const re = /(<!-- LABCOMPARE:START -->\n)[\s\S]*?(<!-- LABCOMPARE:END -->)/;
  if (l.outputs) t += labOutputs(l);
  if (re.test(text)) writeFileSync(readme, text.replace(re, `$1${t}$2`));
}

// The output comparison: per rule and seed, for each function attention only, + value, + symmetric.
function labOutputs(l) {
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const names = { none: 'attention only', value: '+ value', scaled: '+ symmetric' };
  let t = '\n#### The symmetric output (part 2, outputs ticked)\n\n' +
    'The same comparison with *What each head outputs* ticked: each function trained attention only (cross-entropy on A), with a value ' +
    'output O = A V, and with the symmetric output O = A V W / √d, the last two only to copy the target word\'s vector ' +
    '(squared error; nothing supervises A). Each cell: the attention\'s held-out accuracy (largest weight on the target) / the output\'s ' +
    '(output nearest the target word\'s vector among the sentence\'s words; – for attention only), after ' +
    `${l.steps} steps.\n\n`;
  const groups = l.outputs;
  const labels = groups[0].rows.map((r) => r.score);
  t += `| run | ${groups.map((g) => `${g.rule}, seed ${g.seed}`).join(' | ')} |\n|---|${groups.map(() => '--:').join('|')}|\n`;
  for (const label of labels) {
    const r0 = groups[0].rows.find((x) => x.score === label);
    t += `| ${r0.base_score} ${names[r0.output]} | ${groups.map((g) => {
      const r = g.rows.find((x) => x.score === label);
      return `${pct(r.accuracy)} / ${r.output_accuracy === null ? '–' : pct(r.output_accuracy)}`;
    }).join(' | ')} |\n`;
  }
  t += `\nWhat the page writes for seed 1 (previous word):\n\n${l.reading_outputs_seed_1_previous.map((p) => `> ${p}`).join('\n>\n')}\n`;
  return t;
}

// `node scripts/bench-report.mjs --lab`: only the lab's tables, from bench/results/lab.json and lab-compare.json.
if (process.argv[2] === '--lab') { renderLab(BENCHMARKS); renderLabCompare(BENCHMARKS); process.exit(0); }

// `node scripts/bench-report.mjs --limits`: only the limits table, from bench/results/limits.json.
if (process.argv[2] === '--limits') { renderLimits(LIMITS); process.exit(0); }

// The demo page's table (bench/page.mjs), between the PAGE markers inside the BENCH block; also
// rendered alone by `node scripts/bench-report.mjs --page`.
function pageTable() {
  if (!existsSync('bench/results/page.json')) return '';
  const pg = JSON.parse(readFileSync('bench/results/page.json', 'utf8'));
  const ms = (x) => (x === null || x === undefined ? '–' : x.toFixed(1));
  let t = `The demo in ${pg.browser} (headless, software rendering, ${pg.viewport}), after ${pg.warmup_ms / 1000} s of typing to warm up; ` +
    'update = input event to plots redrawn (DOM updated), paint = the browser\'s style, layout and paint after it; medians of ' +
    `${pg.keystrokes} keystrokes (\`node bench/page.mjs\`${pg.loadavg ? `, load average ${pg.loadavg.map((v) => v.toFixed(1)).join(', ')} while it ran` : ''}):\n\n` +
    '| sentence | tokens drawn | update median ms | update p90 ms | paint median ms |\n|---|--:|--:|--:|--:|\n';
  for (const r of pg.results.filter((x) => x.tokensAsked)) {
    t += `| ${r.tokensAsked} tokens typed | ${r.tokensShown} | ${ms(r.update_median_ms)} | ${ms(r.update_p90_ms)} | ${ms(r.paint_median_ms)} |\n`;
  }
  const mh = pg.results.find((x) => x.manyHeads);
  if (mh) {
    t += `| ${mh.name}: ${mh.changes} changes, ${mh.elements.toLocaleString('en')} elements in the page | – | ${ms(mh.update_median_ms)} | ${ms(mh.update_p90_ms)} | ${ms(mh.paint_median_ms)} |\n`;
    if (mh.figure_median_ms) {
      t += `\nThe many-heads case per figure (each figure's redraw on the main thread, median ms over the changes, whether it ran at once or when idle or scrolled into view), and the longest main-thread task per change (PerformanceObserver 'longtask', median ${ms(mh.longest_task_median_ms)} ms, largest ${ms(mh.longest_task_max_ms)} ms; tasks under 50 ms are not reported, so 0 = none):\n\n` +
        `| ${Object.keys(mh.figure_median_ms).join(' | ')} |\n|${Object.keys(mh.figure_median_ms).map(() => '--:').join('|')}|\n` +
        `| ${Object.values(mh.figure_median_ms).map(ms).join(' | ')} |\n`;
    }
    if (mh.main_longest_task_median_ms !== undefined) {
      t += `\nFrom a trace of another ${mh.changes} such changes (every task, not only those over 50 ms; the trace slows the page, so the update and paint above come from the untraced run): the page's longest main-thread task per change, median ${ms(mh.main_longest_task_median_ms)} ms (p90 ${ms(mh.main_longest_task_p90_ms)} ms; one frame is 16.7 ms), and its main-thread time per change in all, median ${ms(mh.main_busy_median_ms)} ms (most of it the figures below the first screen, drawn one per idle period). The update above also waits for the worker, which blocks nothing.\n`;
    }
  }
  const fr = pg.results.find((x) => x.first_render_ms !== undefined);
  if (fr) t += `\nFirst render ${Math.round(fr.first_render_ms)} ms after navigation (module, 5.6 MB vocabulary from a local server, plots).\n`;
  return t;
}
function renderPage(readme) {
  const t = pageTable();
  if (!t || !existsSync(readme)) return;
  const text = readFileSync(readme, 'utf8');
  const re = /(<!-- PAGE:START -->\n)[\s\S]*?(<!-- PAGE:END -->)/;
  if (!re.test(text)) throw new Error(`${readme} lacks the PAGE markers`);
  writeFileSync(readme, text.replace(re, (_, a, b) => a + t + b));
}
if (process.argv[2] === '--page') { renderPage(BENCHMARKS); process.exit(0); }

const [nativeFile, wasmFile] = process.argv.slice(2);
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
  'Medians of 11 batches of CPU time (the thread\'s own, so other processes on the shared machine count less); reproduce with `npm run bench` (results in `bench/results/*.json`).\n';
// attend() in node and the package sizes, when bench.sh recorded them.
let extra = '';
if (existsSync('bench/results/attend-node.json')) {
  const a = JSON.parse(readFileSync('bench/results/attend-node.json', 'utf8'));
  extra += `\n\`attend()\` on a 12-word sentence pair in node ${a.node} (whole call: tokenize, embed, score, softmax, copy out), median of ${a.results[0].iterations} calls:\n\n| options | median ms | p90 ms |\n|---|--:|--:|\n`;
  for (const r of a.results) extra += `| ${r.name} | ${r.median_ms.toFixed(3)} | ${r.p90_ms.toFixed(3)} |\n`;
}
if (existsSync('bench/results/page.json')) extra += `\n<!-- PAGE:START -->\n${pageTable()}<!-- PAGE:END -->\n`;
// Attention (issue 12): the wasm SIMD peak and the score GEMM's share of it, every score through the
// fused path, long sequences (from the wasm kernel benchmark), then attnscope against TF.js and
// plain JS in node (bench/attention-node.mjs), with an SVG plot of GFLOP/s against n.
const wasmCases = runs['wasm-node'].cases;
const peakCase = wasmCases.find((c) => c.case === 'f32_peak_muladd');
const peak = peakCase ? peakCase.gflops : undefined;
if (peakCase) {
  const gemm = wasmCases.find((c) => c.case === 'f32_gemm_nt' && c.variant === 'simd' && c.of_peak !== undefined);
  const nat = runs.native.cases;
  const natPeak = nat.find((c) => c.case === 'f32_peak_muladd'), natGemm = nat.find((c) => c.case === 'f32_gemm_nt' && c.variant === 'simd' && c.of_peak !== undefined);
  extra += '\n### Attention: the SIMD peak, the fused path, long sequences\n\n' +
    'Peak = 12 independent 4-lane multiply+add chains (wasm SIMD128 has no FMA), timed in alternation with the score GEMM ' +
    '`f32_gemm_nt` (S = Q Kᵀ, n = 512, d = 64) in the same process (`attnscope_bench`):\n\n' +
    '| | peak GFLOP/s | score GEMM GFLOP/s | share of peak |\n|---|--:|--:|--:|\n' +
    `| wasm SIMD128 in node | ${peak.toFixed(1)} | ${gemm.gflops.toFixed(1)} | ${(100 * gemm.of_peak).toFixed(0)}% |\n`;
  if (natPeak && natGemm) extra += `| native SSE2 | ${natPeak.gflops.toFixed(1)} | ${natGemm.gflops.toFixed(1)} | ${(100 * natGemm.of_peak).toFixed(0)}% |\n`;
  const fusedScores = wasmCases.filter((c) => c.case.startsWith('attention_output_'));
  const base = fusedScores.find((c) => c.case === 'attention_output_scaled-dot');
  if (base) {
    extra += `\nEvery score through \`attention_output\` (wasm, n = ${base.nq}, d = ${base.d}; additive runs its own O(nq·nk·h) loop, h = d):\n\n` +
      '| score | median ms | × scaled-dot |\n|---|--:|--:|\n';
    for (const c of fusedScores) extra += `| \`${c.case.slice('attention_output_'.length)}\` | ${(c.median_us / 1000).toFixed(2)} | ${(c.median_us / base.median_us).toFixed(2)} |\n`;
  }
  const att = wasmCases.filter((c) => c.case === 'attention_output' || c.case === 'attention');
  if (att.length) {
    extra += '\nFused (`attention_output`, O only) against the full chain (`attention`: S, A and O), wasm, simd, self-attention n × n:\n\n' +
      '| n | d | attention_output ms | GFLOP/s | % of peak | attention ms | GFLOP/s |\n|--:|--:|--:|--:|--:|--:|--:|\n';
    for (const c of att.filter((x) => x.case === 'attention_output' && x.variant === 'simd')) {
      const full = att.find((x) => x.case === 'attention' && x.variant === 'simd' && x.nq === c.nq && x.d === c.d);
      extra += `| ${c.nq} | ${c.d} | ${(c.median_us / 1000).toFixed(2)} | ${c.gflops.toFixed(1)} | ${(100 * c.gflops / peak).toFixed(0)}% | ` +
        `${full ? (full.median_us / 1000).toFixed(2) : '–'} | ${full ? full.gflops.toFixed(1) : '–'} |\n`;
    }
  }
}
if (existsSync('bench/results/attention-node.json')) {
  const a = JSON.parse(readFileSync('bench/results/attention-node.json', 'utf8'));
  const by = (impl, n, d) => a.results.find((r) => r.impl === impl && r.n === n && r.d === d);
  const sizes = [...new Set(a.results.map((r) => `${r.n}|${r.d}`))].map((k) => k.split('|').map(Number));
  const ms = (r) => (r ? r.median_ms.toFixed(2) : '–');
  const x = (ours, theirs) => (ours && theirs ? `${(theirs.median_ms / ours.median_ms).toFixed(2)}×` : '–');
  extra += `\n### softmax(QKᵀ/√d)·V in node: attnscope vs TensorFlow.js vs plain JS\n\n` +
    `node ${a.node}, ${a.cpu}; TF.js ${a.tfjs.version} backend \`${a.tfjs.backend}\` (SIMD ${a.tfjs.simd}, multithread ${a.tfjs.threads}, ${a.tfjs.threadsCount} thread), ` +
    'computing `matMul(softmax(matMul(Q, transpose(K)) · 1/√d), V)` on tensors already in its memory, reading the result back with `dataSync()`; ' +
    'attnscope copies Q, K, V in and the result out on every call. One process, implementations interleaved round by round, medians of CPU time (`process.cpuUsage()`; ' +
    `load average during the run ${a.loadavg ? a.loadavg.map((v) => v.toFixed(1)).join(', ') : '?'}) after ≥ 1.5 s of warm-up ` +
    '(`node bench/attention-node.mjs`). "× TF.js" = TF.js time / attnscope time (above 1 = attnscope faster).\n\n' +
    '| n | d | attentionOutput() ms | TF.js output ms | × TF.js | attention() weights+output ms | TF.js weights+output ms | × TF.js | plain JS ms | max \\|diff\\| vs TF.js |\n' +
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n';
  for (const [n, d] of sizes) {
    const f = by('attnscope attentionOutput()', n, d), t = by('tfjs-wasm output', n, d);
    const w = by('attnscope attention() weights+output', n, d), tw = by('tfjs-wasm weights+output', n, d), p = by('plain JS', n, d);
    const ag = a.agreement.find((g) => g.n === n && g.d === d);
    const diff = ag ? (ag.attentionOutput_vs_tfjs ?? ag.attention_vs_tfjs) : undefined;
    const refused = (a.refusals || []).find((r) => r.n === n && r.d === d);
    extra += `| ${n} | ${d} | ${ms(f)} | ${ms(t)} | ${x(f, t)} | ${refused ? 'refused¹' : ms(w)} | ${ms(tw)} | ${x(w, tw)} | ${ms(p)} | ${diff === undefined ? '–' : diff.toExponential(1)} |\n`;
  }
  const firstRefusal = (a.refusals || [])[0];
  if (firstRefusal) extra += `\n¹ refused up front by the work budget (docs/limits.md): "${firstRefusal.refused}"\n`;
  extra += '\nSmall calls (CPU time per call from batches of 50 after a 1.5 s warm-up, median):\n\n| call | median µs |\n|---|--:|\n';
  for (const s2 of a.small) extra += `| ${s2.call} | ${s2.median_us.toFixed(1)} |\n`;
  // The plot: GFLOP/s against n at d = 64, one line per implementation.
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
  // Named, not linked: docs/benchmarks.md ships in the package, whose tarball holds no bench/ folder.
  extra += '\nThe same figures as a plot, GFLOP/s against n at d = 64 with the measured peak: `bench/results/attention.svg` in the repository.\n';
}
if (existsSync('bench/results/dist-sizes.json')) {
  const d = JSON.parse(readFileSync('bench/results/dist-sizes.json', 'utf8')).files;
  extra += '\nPackage files (bytes):\n\n| file | raw | gzip |\n|---|--:|--:|\n';
  for (const [f, v] of Object.entries(d)) if (!f.endsWith('.d.ts')) extra += `| \`${f}\` | ${v.raw.toLocaleString('en')} | ${v.gzip.toLocaleString('en')} |\n`;
}
table += extra;
const readme = BENCHMARKS;
if (existsSync(readme)) {
  const text = readFileSync(readme, 'utf8');
  const re = /(<!-- BENCH:START -->\n)[\s\S]*?(<!-- BENCH:END -->)/;
  if (re.test(text)) writeFileSync(readme, text.replace(re, `$1${env}\n${table}$2`));
}
renderLimits(LIMITS);
renderLab(BENCHMARKS);
renderLabCompare(BENCHMARKS);
console.log(env + '\n' + table);
