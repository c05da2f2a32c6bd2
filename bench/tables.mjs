// Every table the docs show from a benchmark's result file, generated: each block sits in its doc
// between <!-- NAME:START --> and <!-- NAME:END --> and is made from the current result file(s) in
// bench/results/ by the function BLOCKS gives for NAME. `node bench/tables.mjs` rewrites every block
// of every doc (npm run bench runs it last); tests/js/bench-tables.test.mjs regenerates them in memory
// and fails when a doc differs (a number copied by hand, or a result re-run without this script).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const result = (name) => JSON.parse(readFileSync(join(ROOT, 'bench/results', `${name}.json`), 'utf8'));
const x = (v) => `${v.toFixed(2)}×`;
const e1 = (v) => v.toExponential(1);
const load = (r) => `load average ${r.loadavg[0].toFixed(2)} at the start`;
const cellText = (s) => s.replace(/\|/g, '\\|');

// ---- the kernels (build/native and build/wasm attnscope_bench, wrapped by scripts/bench-report.mjs)

const fmtUs = (v) => (v === undefined ? '–' : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0));
const speedup = (a, b) => (a && b ? `${(a / b).toFixed(1)}×` : '–');

function kernels() {
  const native = result('native'), wasm = result('wasm-node');
  const rows = new Map();
  for (const [name, r] of [['native', native], ['wasm', wasm]]) {
    for (const c of r.cases) {
      const k = `${c.case}|${c.nq}x${c.nk}x${c.d}`;
      if (!rows.has(k)) rows.set(k, { case: c.case, size: `${c.nq}×${c.nk}, d=${c.d}` });
      rows.get(k)[`${name}-${c.variant}`] = c.median_us;
    }
  }
  let t = `Measured ${native.date} on ${native.cpu} (${native.cores} cores, shared and noisy: compare the ratios within a row, which come from one run). `
    + `Native: ${native.compiler}, ${native.flags}. Wasm: ${wasm.compiler}, node ${wasm.node}, ${wasm.flags}. `
    + 'Medians of 11 batches of CPU time (the thread\'s own, so other processes on the shared machine count less).\n\n'
    + '| kernel | nq×nk, d | native scalar µs | native simd µs | speed-up | wasm scalar µs | wasm simd µs | speed-up |\n|---|---|--:|--:|--:|--:|--:|--:|\n';
  for (const r of rows.values()) {
    t += `| \`${r.case}\` | ${r.size} | ${fmtUs(r['native-scalar'])} | ${fmtUs(r['native-simd'])} | ${speedup(r['native-scalar'], r['native-simd'])} | `
      + `${fmtUs(r['wasm-scalar'])} | ${fmtUs(r['wasm-simd'])} | ${speedup(r['wasm-scalar'], r['wasm-simd'])} |\n`;
  }
  return t;
}

/** The wasm SIMD128 peak of the kernel benchmark (f32_peak_muladd), GFLOP/s. */
const wasmPeak = () => result('wasm-node').cases.find((c) => c.case === 'f32_peak_muladd').gflops;

// The peak and the score GEMM's share of it, every score through the fused path, long sequences.
function peak() {
  const wasm = result('wasm-node').cases, nat = result('native').cases;
  const pk = (cases) => cases.find((c) => c.case === 'f32_peak_muladd');
  const gemm = (cases) => cases.find((c) => c.case === 'f32_gemm_nt' && c.variant === 'simd' && c.of_peak !== undefined);
  const p = pk(wasm).gflops;
  let t = 'Peak = 12 independent 4-lane multiply+add chains (wasm SIMD128 has no FMA), timed in alternation with the score GEMM '
    + '`f32_gemm_nt` (S = Q Kᵀ, n = 512, d = 64) in the same process (`attnscope_bench`):\n\n'
    + '| | peak GFLOP/s | score GEMM GFLOP/s | share of peak |\n|---|--:|--:|--:|\n'
    + `| wasm SIMD128 in node | ${p.toFixed(1)} | ${gemm(wasm).gflops.toFixed(1)} | ${(100 * gemm(wasm).of_peak).toFixed(0)}% |\n`;
  if (pk(nat) && gemm(nat)) t += `| native SSE2 | ${pk(nat).gflops.toFixed(1)} | ${gemm(nat).gflops.toFixed(1)} | ${(100 * gemm(nat).of_peak).toFixed(0)}% |\n`;
  const fused = wasm.filter((c) => c.case.startsWith('attention_output_'));
  const base = fused.find((c) => c.case === 'attention_output_scaled-dot');
  t += `\nEvery score through \`attention_output\` (wasm, n = ${base.nq}, d = ${base.d}; additive runs its own O(nq·nk·h) loop, h = d):\n\n`
    + '| score | median ms | × scaled-dot |\n|---|--:|--:|\n';
  for (const c of fused) t += `| \`${c.case.slice('attention_output_'.length)}\` | ${(c.median_us / 1000).toFixed(2)} | ${(c.median_us / base.median_us).toFixed(2)} |\n`;
  t += '\nFused (`attention_output`, O only) against the full chain (`attention`: S, A and O), wasm, simd, self-attention n × n:\n\n'
    + '| n | d | attention_output ms | GFLOP/s | % of peak | attention ms | GFLOP/s |\n|--:|--:|--:|--:|--:|--:|--:|\n';
  for (const c of wasm.filter((y) => y.case === 'attention_output' && y.variant === 'simd')) {
    const full = wasm.find((y) => y.case === 'attention' && y.variant === 'simd' && y.nq === c.nq && y.d === c.d);
    t += `| ${c.nq} | ${c.d} | ${(c.median_us / 1000).toFixed(2)} | ${c.gflops.toFixed(1)} | ${(100 * c.gflops / p).toFixed(0)}% | `
      + `${full ? (full.median_us / 1000).toFixed(2) : '–'} | ${full ? full.gflops.toFixed(1) : '–'} |\n`;
  }
  return t;
}

// ---- node: attend(), softmax(QKᵀ/√d)·V against TF.js, the package's sizes

function attendNode() {
  const a = result('attend-node');
  let t = `\`attend()\` on a 12-word sentence pair in node ${a.node} (whole call: tokenize, embed, score, softmax, copy out), median of ${a.results[0].iterations} calls:\n\n`
    + '| options | median ms | p90 ms |\n|---|--:|--:|\n';
  for (const r of a.results) t += `| ${r.name} | ${r.median_ms.toFixed(3)} | ${r.p90_ms.toFixed(3)} |\n`;
  return t;
}

function attentionNode() {
  const a = result('attention-node');
  const by = (impl, n, d) => a.results.find((r) => r.impl === impl && r.n === n && r.d === d);
  const sizes = [...new Set(a.results.map((r) => `${r.n}|${r.d}`))].map((k) => k.split('|').map(Number));
  const ms = (r) => (r ? r.median_ms.toFixed(2) : '–');
  const ratio = (ours, theirs) => (ours && theirs ? `${(theirs.median_ms / ours.median_ms).toFixed(2)}×` : '–');
  let t = `node ${a.node}, ${a.cpu}; TF.js ${a.tfjs.version} backend \`${a.tfjs.backend}\` (SIMD ${a.tfjs.simd}, multithread ${a.tfjs.threads}, ${a.tfjs.threadsCount} thread), `
    + 'computing `matMul(softmax(matMul(Q, transpose(K)) · 1/√d), V)` on tensors already in its memory, reading the result back with `dataSync()`; '
    + 'attnscope copies Q, K, V in and the result out on every call. One process, implementations interleaved round by round, medians of CPU time (`process.cpuUsage()`; '
    + `load average during the run ${a.loadavg ? a.loadavg.map((v) => v.toFixed(1)).join(', ') : '?'}) after ≥ 1.5 s of warm-up `
    + '(`node bench/attention-node.mjs`). "× TF.js" = TF.js time / attnscope time (above 1 = attnscope faster).\n\n'
    + '| n | d | attentionOutput() ms | TF.js output ms | × TF.js | attention() weights+output ms | TF.js weights+output ms | × TF.js | plain JS ms | max \\|diff\\| vs TF.js |\n'
    + '|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n';
  for (const [n, d] of sizes) {
    const f = by('attnscope attentionOutput()', n, d), tf = by('tfjs-wasm output', n, d);
    const w = by('attnscope attention() weights+output', n, d), tw = by('tfjs-wasm weights+output', n, d), p = by('plain JS', n, d);
    const ag = a.agreement.find((g) => g.n === n && g.d === d);
    const diff = ag ? (ag.attentionOutput_vs_tfjs ?? ag.attention_vs_tfjs) : undefined;
    const refused = (a.refusals || []).find((r) => r.n === n && r.d === d);
    t += `| ${n} | ${d} | ${ms(f)} | ${ms(tf)} | ${ratio(f, tf)} | ${refused ? 'refused¹' : ms(w)} | ${ms(tw)} | ${ratio(w, tw)} | ${ms(p)} | ${diff === undefined ? '–' : diff.toExponential(1)} |\n`;
  }
  const firstRefusal = (a.refusals || [])[0];
  if (firstRefusal) t += `\n¹ refused up front by the work budget (docs/limits.md): "${firstRefusal.refused}"\n`;
  t += '\nSmall calls (CPU time per call from batches of 50 after a 1.5 s warm-up, median):\n\n| call | median µs |\n|---|--:|\n';
  for (const s of a.small) t += `| ${s.call} | ${s.median_us.toFixed(1)} |\n`;
  return t;
}

function distSizes() {
  const d = result('dist-sizes').files;
  let t = 'Package files (bytes):\n\n| file | raw | gzip |\n|---|--:|--:|\n';
  for (const [f, v] of Object.entries(d)) if (!f.endsWith('.d.ts')) t += `| \`${f}\` | ${v.raw.toLocaleString('en')} | ${v.gzip.toLocaleString('en')} |\n`;
  return t;
}

// ---- the demo page (bench/page.mjs, bench/page-scale.mjs)

function page() {
  const pg = result('page');
  const ms = (v) => (v === null || v === undefined ? '–' : v.toFixed(1));
  let t = `The demo in ${pg.browser} (headless, software rendering, ${pg.viewport}), after ${pg.warmup_ms / 1000} s of typing to warm up; `
    + 'update = input event to plots redrawn (DOM updated), paint = the browser\'s style, layout and paint after it; medians of '
    + `${pg.keystrokes} keystrokes (\`node bench/page.mjs\`${pg.loadavg ? `, load average ${pg.loadavg.map((v) => v.toFixed(1)).join(', ')} while it ran` : ''}):\n\n`
    + '| sentence | tokens drawn | update median ms | update p90 ms | paint median ms |\n|---|--:|--:|--:|--:|\n';
  for (const r of pg.results.filter((y) => y.tokensAsked)) {
    t += `| ${r.tokensAsked} tokens typed | ${r.tokensShown} | ${ms(r.update_median_ms)} | ${ms(r.update_p90_ms)} | ${ms(r.paint_median_ms)} |\n`;
  }
  const mh = pg.results.find((y) => y.manyHeads);
  if (mh) {
    t += `| ${mh.name}: ${mh.changes} changes, ${mh.elements.toLocaleString('en')} elements in the page | – | ${ms(mh.update_median_ms)} | ${ms(mh.update_p90_ms)} | ${ms(mh.paint_median_ms)} |\n`;
    if (mh.figure_median_ms) {
      t += `\nThe many-heads case per figure (each figure's redraw on the main thread, median ms over the changes, whether it ran at once or when idle or scrolled into view), and the longest main-thread task per change (PerformanceObserver 'longtask', median ${ms(mh.longest_task_median_ms)} ms, largest ${ms(mh.longest_task_max_ms)} ms; tasks under 50 ms are not reported, so 0 = none):\n\n`
        + `| ${Object.keys(mh.figure_median_ms).join(' | ')} |\n|${Object.keys(mh.figure_median_ms).map(() => '--:').join('|')}|\n`
        + `| ${Object.values(mh.figure_median_ms).map(ms).join(' | ')} |\n`;
    }
    if (mh.main_longest_task_median_ms !== undefined) {
      t += `\nFrom a trace of another ${mh.changes} such changes (every task, not only those over 50 ms; the trace slows the page, so the update and paint above come from the untraced run): the page's longest main-thread task per change, median ${ms(mh.main_longest_task_median_ms)} ms (p90 ${ms(mh.main_longest_task_p90_ms)} ms; one frame is 16.7 ms), and its main-thread time per change in all, median ${ms(mh.main_busy_median_ms)} ms (most of it the figures below the first screen, drawn one per idle period). The update above also waits for the worker, which blocks nothing.\n`;
    }
  }
  const fr = pg.results.find((y) => y.first_render_ms !== undefined);
  if (fr) t += `\nFirst render ${Math.round(fr.first_render_ms)} ms after navigation (module, 5.6 MB vocabulary from a local server, plots).\n`;
  return t;
}

function pageScale() {
  const r = result('page-scale');
  const ms = (v) => (v === null || v === undefined ? '–' : v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en'));
  let t = `Long documents in the demo, measured ${r.date} with \`node bench/page-scale.mjs\` in ${r.browser} (headless, software `
    + `rendering, ${r.viewport}) on ${r.cpu} (${r.cores} cores, load average ${r.loadavg ? r.loadavg[0].toFixed(1) : r.load_average} while it ran: upper bounds for a quiet machine); `
    + `medians after ${r.warmup_ms / 1000} s of warm-up; the wasm runs in the page's module worker.\n\n`
    + '| what | runs | median ms | p90 ms | notes |\n|---|--:|--:|--:|---|\n';
  for (const y of r.results) {
    const runs = y.runs ?? y.frames ?? y.keystrokes ?? '';
    let notes = '';
    if (y.longtasks_per_paste !== undefined) notes = `${y.longtasks_per_paste} long tasks per paste, longest ${ms(y.longtask_max_ms)} ms`;
    if (y.per_figure_median_ms) notes = Object.entries(y.per_figure_median_ms).filter(([, v]) => v >= 1).map(([k, v]) => `${k} ${ms(v)}`).join(', ');
    if (y.drawn !== undefined) notes = `${y.drawn} drawn, ${y.superseded} superseded by a newer keystroke`;
    t += `| ${y.name} | ${runs} | ${ms(y.median_ms)} | ${ms(y.p90_ms)} | ${notes} |\n`;
  }
  return t;
}

// ---- the model page (bench/model.mjs), the trained model against TF.js (bench/use-lite.mjs)

function modelPage() {
  const r = result('model');
  const ms = (v) => (v === null || v === undefined ? '–' : `${Math.round(v).toLocaleString('en')}`);
  let t = `Measured ${r.date} in ${r.browser} (headless, software rendering, ${r.viewport}) on ${r.cpu} (${r.cores} cores, shared: load average ${r.loadavg.join(', ')}), `
    + `a ${r.shape.join(' × ')} float32 .npy (${(r.file_bytes / 1e6).toFixed(0)} MB) and its tokens dropped ${r.runs} times after ${r.warmup_ms / 1000} s of drops to warm up; medians (\`node bench/model.mjs\`):\n\n`
    + '| step | median ms |\n|---|--:|\n';
  for (const y of r.results) t += `| ${y.name} | ${ms(y.median_ms)} |\n`;
  return t;
}

function useLite() {
  const r = result('use-lite');
  const ms = (v) => v.toFixed(1);
  let t = `Measured ${r.date.slice(0, 16).replace('T', ' ')} UTC, node ${r.node}, ${r.cpu} (${r.cores} cores, shared: load average ${r.loadavg.join(', ')}); `
    + `attnscope ${r.attnscope_variant}, ${r.tfjs}; ${r.runs} runs per case after ${r.warmup_ms / 1000} s of warm-up, medians:\n\n`
    + '| tokens | attnscope encode(text) ms | encodeIds(ids) ms | TF.js embedding ms | TF.js embedding + attentions ms | speed-up (vs embedding / vs + attentions) |\n|--:|--:|--:|--:|--:|--:|\n';
  for (const y of r.results) {
    const m = y.median_ms;
    t += `| ${y.tokens} | ${ms(m['attnscope encode(text)'])} | ${ms(m['attnscope encodeIds(ids)'])} | ${ms(m['TF.js embedding'])} | ${ms(m['TF.js embedding + attentions'])} | `
      + `${y.speedup_vs_tfjs_embedding.toFixed(2)}× / ${y.speedup_vs_tfjs_with_attentions.toFixed(2)}× |\n`;
  }
  return t;
}

// ---- limits (bench/limits.mjs)

function limits() {
  const l = result('limits');
  let t = `Measured ${l.date.slice(0, 10)} with \`node bench/limits.mjs\` (node ${l.node}, ${l.cpu}, ${l.cores} cores, `
    + `load average ${l.loadavg ? l.loadavg[0] : '?'} while it ran: the figures are upper bounds for a quiet machine). `
    + 'Median of 3 calls after a warm-up call unless the case says one run; a refused call is refused before any allocation or work.\n\n'
    + '| call | ms | outcome |\n|---|--:|---|\n';
  for (const c of l.cases) {
    const outcome = c.refused ? `refused: ${cellText(c.refused).slice(0, 140)}${c.refused.length > 140 ? '…' : ''}` : 'computed';
    t += `| ${c.name} | ${c.ms.toLocaleString('en', { maximumFractionDigits: c.ms < 10 ? 2 : 0 })} | ${outcome} |\n`;
  }
  return t;
}

// ---- the lab (bench/lab.mjs, bench/lab-compare.mjs, bench/lab-prototypes.mjs)

function lab() {
  const l = result('lab');
  const h = l.head;
  let t = `Measured ${l.date.slice(0, 10)} with \`node bench/lab.mjs\` (node ${l.node}, ${l.cpu}, ${l.cores} cores, load average `
    + `${l.loadavg[0]} while it ran). One step = one batch of ${h.batch} sentences (${h.tokens_per_batch} words on average) of the `
    + `previous-word task, d = ${h.dIn} word vectors + ${h.dPos} positional features → ${h.dHead}: forward, backward, Adam. `
    + `Median over ${l.batches} batches of ${l.steps_per_batch} steps after ${l.warmup_ms / 1000} s of warm-up.\n\n`
    + '| case | ms per step | CPU ms per step |\n|---|--:|--:|\n';
  for (const c of l.steps) t += `| ${c.case} | ${c.ms_per_step.toFixed(2)} | ${c.cpu_ms_per_step.toFixed(2)} |\n`;
  t += `\nms per step of the same task by scoring function (SIMD wasm): ${l.per_score.map((p) => `${p.score} ${p.ms_per_step.toFixed(2)}`).join(', ')}.\n`;
  const rules = [...new Set(l.accuracy.map((a) => a.rule))];
  const scores = [...new Set(l.accuracy.map((a) => a.score))];
  const first = l.accuracy[0];
  t += `\nHeld-out accuracy (argmax on the target) after ${first.steps} steps from seed ${first.seed}, learning rate ${h.learningRate}; `
    + 'in brackets the first step (of every 25) at which it reached 90%, – if it did not. Chance: '
    + rules.map((r) => `${r} ${(100 * l.accuracy.find((a) => a.rule === r).chance).toFixed(0)}%`).join(', ')
    + ` (held-out target rows: ${rules.map((r) => `${r} ${l.accuracy.find((a) => a.rule === r).held_out_rows}`).join(', ')}; `
    + 'the pronoun set is tiny: read its column as anecdote).\n\n'
    + `| score | ${rules.join(' | ')} |\n|---|${rules.map(() => '--:').join('|')}|\n`;
  for (const s of scores) {
    t += `| ${s} | ${rules.map((r) => {
      const a = l.accuracy.find((y) => y.rule === r && y.score === s);
      return `${(100 * a.accuracy).toFixed(1)}% (${a.steps_to_90 ?? '–'})`;
    }).join(' | ')} |\n`;
  }
  return t;
}

function labCompare() {
  const l = result('lab-compare');
  const cell = (r) => `${(100 * r.accuracy).toFixed(1)}% (${r.steps_to_90 ?? '–'})`;
  const scores = l.by_rule[0].rows.map((r) => r.score);
  let t = `Computed ${l.date.slice(0, 10)} with \`node bench/lab-compare.mjs\` (node ${l.node}, ${l.isa}): the page's Compare with its `
    + `defaults, ${l.steps} steps per function, learning rate ${l.learning_rate}, held-out accuracy measured every ${l.eval_every} steps. `
    + 'Each cell: held-out accuracy after the last step, and in brackets the first step at which it reached 90% (– not reached). '
    + 'The numbers are deterministic for a build: the page shows the same ones for the same seed.\n\n'
    + `Every rule, seed 1 (chance: ${l.by_rule.map((r) => `${r.rule} ${(100 * r.chance).toFixed(0)}%`).join(', ')}; held-out target words: `
    + `${l.by_rule.map((r) => `${r.rule} ${r.held_out_rows}`).join(', ')}):\n\n`
    + `| score | ${l.by_rule.map((r) => r.rule).join(' | ')} |\n|---|${l.by_rule.map(() => '--:').join('|')}|\n`;
  for (const s of scores) t += `| ${s} | ${l.by_rule.map((r) => cell(r.rows.find((y) => y.score === s))).join(' | ')} |\n`;
  t += `\nThe previous-word rule from ${l.by_seed.length} seeds (how much the order moves with the seed alone):\n\n`
    + `| score | ${l.by_seed.map((r) => `seed ${r.seed}`).join(' | ')} |\n|---|${l.by_seed.map(() => '--:').join('|')}|\n`;
  for (const s of scores) t += `| ${s} | ${l.by_seed.map((r) => cell(r.rows.find((y) => y.score === s))).join(' | ')} |\n`;
  t += `\nWhat the page writes under the table for seed 1 (previous word):\n\n${l.reading_seed_1_previous.map((p) => `> ${p}`).join('\n>\n')}\n`;
  if (l.outputs) t += labOutputs(l);
  return t;
}

// The output comparison: per rule and seed, for each function attention only, + value, + symmetric.
function labOutputs(l) {
  const pct = (v) => `${(100 * v).toFixed(1)}%`;
  const names = { none: 'attention only', value: '+ value', scaled: '+ symmetric' };
  let t = '\n#### The symmetric output (part 2, outputs ticked)\n\n'
    + 'The same comparison with *What each head outputs* ticked: each function trained attention only (cross-entropy on A), with a value '
    + 'output O = A V, and with the symmetric output O = A V W / √d, the last two only to copy the target word\'s vector '
    + '(squared error; nothing supervises A). Each cell: the attention\'s held-out accuracy (largest weight on the target) / the output\'s '
    + '(output nearest the target word\'s vector among the sentence\'s words; – for attention only), after '
    + `${l.steps} steps.\n\n`;
  const groups = l.outputs;
  const labels = groups[0].rows.map((r) => r.score);
  t += `| run | ${groups.map((g) => `${g.rule}, seed ${g.seed}`).join(' | ')} |\n|---|${groups.map(() => '--:').join('|')}|\n`;
  for (const label of labels) {
    const r0 = groups[0].rows.find((y) => y.score === label);
    t += `| ${r0.base_score} ${names[r0.output]} | ${groups.map((g) => {
      const r = g.rows.find((y) => y.score === label);
      return `${pct(r.accuracy)} / ${r.output_accuracy === null ? '–' : pct(r.output_accuracy)}`;
    }).join(' | ')} |\n`;
  }
  t += `\nWhat the page writes for seed 1 (previous word):\n\n${l.reading_outputs_seed_1_previous.map((p) => `> ${p}`).join('\n>\n')}\n`;
  return t;
}

function labPrototypes() {
  const r = result('lab-prototypes');
  const c = r.comparison;
  const pct = (v) => `${(100 * v).toFixed(1)}%`;
  const mean = (rows, f) => rows.reduce((s, y) => s + f(y), 0) / rows.length;
  const cell = (rows) => `${pct(mean(rows, (y) => y.test_accuracy))} · ${mean(rows, (y) => y.key_to_nearest_median).toFixed(2)} · `
    + `${(c.settings.m * mean(rows, (y) => y.keys_on_data)).toFixed(rows.length > 1 ? 1 : 0)}`;
  const spacing = (d) => mean(c.rows.filter((y) => y.dataset === d && y.score === 'idw'), (y) => y.data_spacing);
  let t = `Measured ${r.date.slice(0, 10)} with \`node bench/lab-prototypes.mjs\` (node ${r.node}, ${r.cpu}, ${r.cores} cores, load average `
    + `${r.loadavg[0]} while it ran). Every data set: ${c.settings.n} points (70% train, 30% test), noise ${c.settings.noise}; `
    + `${c.settings.m} keys, τ = ${c.settings.temperature}, Adam with learning rate ${c.settings.learningRate}, ${c.settings.steps} full-batch steps; `
    + 'every scoring function starts from the same keys and values for a seed (uniform in [−1.5, 1.5]², where the data lie: a median '
    + `${mean(c.rows, (y) => y.key_to_nearest_median_at_start).toFixed(2)} from the nearest training point). Each cell: test accuracy · median distance from a key `
    + `to its nearest training point · keys (of ${c.settings.m}) on the data, i.e. within twice the points' own spacing (a training point's median `
    + `distance to its nearest neighbour: ${[...new Set(c.rows.map((y) => y.dataset))].map((d) => `${d} ${spacing(d).toFixed(3)}`).join(', ')}). `
    + 'Cosine\'s distances say little: a cosine key\'s length gets no gradient.\n\n';
  const datasets = [...new Set(c.rows.map((y) => y.dataset))];
  const scores = [...new Set(c.rows.map((y) => y.score))];
  for (const [label, seeds] of [[`Seed ${c.seeds[0]}`, [c.seeds[0]]], [`Mean over seeds ${c.seeds[0]}–${c.seeds[c.seeds.length - 1]}`, c.seeds]]) {
    t += `${label}:\n\n| score | ${datasets.join(' | ')} |\n|---|${datasets.map(() => '--:').join('|')}|\n`;
    for (const s of scores) {
      t += `| ${s} | ${datasets.map((d) => cell(c.rows.filter((y) => y.dataset === d && y.score === s && seeds.includes(y.seed)))).join(' | ')} |\n`;
    }
    t += '\n';
  }
  t += 'Keys that carry the class of their nearest training point (mean over all runs): '
    + scores.map((s) => { const rows = c.rows.filter((y) => y.score === s); return `${s} ${pct(rows.reduce((a, y) => a + y.keys_class_agrees, 0) / rows.length)}`; }).join(', ') + '.\n\n';
  t += `One training step on the default data (${r.step.train_points} training points, ${r.step.keys} keys; forward, cross-entropy, backward, Adam), `
    + `SIMD wasm in node, median ms: ${r.step.per_score.map((p) => `${p.score} ${p.ms_per_step.toFixed(3)}`).join(', ')}.`;
  if (r.page) t += ` In the page (Chromium, training in the worker, map and curves redrawn every frame): 500 steps in a median ${(r.page.median_ms_to_500_steps / 1000).toFixed(1)} s; longest main-thread task ${r.page.median_longest_task_ms} ms (median of ${r.page.runs.length} runs; 0 = no task over 50 ms).`;
  return `${t}\n`;
}

// ---- relaxed SIMD, Chromium against TF.js, training, the transformer page

function relaxedNode() {
  const r = result('relaxed-node');
  return `Measured ${r.date.slice(0, 10)}, node ${r.node}, ${r.cpu}, ${load(r)}; CPU-time medians of ${r.batches} interleaved batches:\n\n`
    + '| case | SIMD ms | relaxed ms | relaxed / SIMD | max \\|diff\\| |\n|---|--:|--:|--:|--:|\n'
    + r.results.map((c) => `| ${c.case} | ${c.before_ms} | ${c.after_ms} | ${c.after_over_before} | ${e1(c.max_abs_diff)} |`).join('\n') + '\n';
}

function attentionChromium() {
  const r = result('attention-chromium');
  return `Measured ${r.date} in ${r.browser} (TF.js ${r.tfjs.version}, ${r.tfjs.backend}, SIMD ${r.tfjs.simd}, threads ${r.tfjs.threads}; `
    + `attnscope's default module there: ${r.attnscope}), ${r.cpu}, ${r.cores} cores, ${load(r)}; medians of ${r.batches} interleaved batches:\n\n`
    + '| n × d | relaxed ms | SIMD ms | TF.js ms | TF.js / relaxed | TF.js / SIMD | SIMD / relaxed | max \\|diff\\| vs TF.js |\n|---|--:|--:|--:|--:|--:|--:|--:|\n'
    + r.results.map((c) => {
      const [fast, plain, tf] = Object.values(c.ms);
      return `| ${c.n} × ${c.d} | ${fast} | ${plain} | ${tf} | **${x(c.tfjs_over_attnscope)}** | ${x(c.tfjs_over_attnscope_simd)} | ${x(c.relaxed_speedup)} | ${e1(c.max_abs_diff_vs_tfjs)} |`;
    }).join('\n') + '\n';
}

function useLiteChromium() {
  const r = result('use-lite-chromium');
  return `Measured ${r.date} in ${r.browser}, ${r.cpu}, ${r.cores} cores, ${load(r)}; medians of ${r.runs} interleaved batches:\n\n`
    + '| tokens | attnscope relaxed ms | attnscope SIMD ms | TF.js graph ms | TF.js / relaxed | TF.js / SIMD | embedding max \\|diff\\| |\n|--:|--:|--:|--:|--:|--:|--:|\n'
    + r.results.map((c) => {
      const [fast, plain, tf] = Object.values(c.ms);
      return `| ${c.tokens} | ${fast} | ${plain} | ${tf} | **${x(c.tfjs_over_attnscope)}** | ${x(c.tfjs_over_attnscope_simd)} | ${e1(c.embedding_max_abs_diff)} |`;
    }).join('\n') + '\n';
}

function trainNode() {
  const r = result('train-node');
  const mem = r.memory.after;
  return `Measured ${r.date.slice(0, 10)}, node ${r.node}, ${r.cpu}, ${load(r)}; attnscope ${r.attnscope}, TF.js ${r.tfjs.version} (${r.tfjs.backend}, SIMD ${r.tfjs.simd}, ${r.tfjs.threads} thread); `
    + `CPU-time medians of ${r.rounds} interleaved steps:\n\n`
    + '| one step, batch 16 × 64 | ms |\n|---|--:|\n'
    + Object.entries(r.median_ms).map(([k, v]) => `| ${k} | ${v} |`).join('\n')
    + `\n| **TF.js / attnscope** | **${x(r.tfjs_over_attnscope)}** |\n\n`
    + `Loss before training, from the same parameters: attnscope ${r.loss_before_training.attnscope.toFixed(6)}, TF.js ${r.loss_before_training.tfjs.toFixed(6)}. `
    + `attnscope's wasm memory in use: ${r.memory.before.toLocaleString('en')} bytes before, ${mem[mem.length - 1].bytes_in_use.toLocaleString('en')} after ${mem[mem.length - 1].steps.toLocaleString('en')} steps `
    + `(${mem.map((m) => m.bytes_in_use.toLocaleString('en')).join(', ')} every ${mem[0].steps} steps).\n`;
}

function transformerPage() {
  const r = result('transformer-page');
  const row = (e) => (e.task === 'characters'
    ? `| ${e.task} | ${e.seed} | no target: trained ${e.seconds.toFixed(0)} s | ${e.steps.toLocaleString('en')} | ${cellText(e.reading)} Sample: “${e.sample.slice(0, 120)}…” |`
    : `| ${e.task} | ${e.seed} | ${e.reached ? `**met at step ${e.reachedAtStep.toLocaleString('en')}, ${e.seconds.toFixed(1)} s**` : `not met in ${e.seconds.toFixed(0)} s`} | ${e.steps.toLocaleString('en')} | ${cellText(e.reading)} |`);
  return `Measured ${r.date.slice(0, 10)} in Chromium ${r.chromium}, ${r.cpu}, ${r.cores} cores, ${load(r)}; the page's default settings, wall time from *Train*:\n\n`
    + '| task | seed | target | steps trained | what the page said |\n|---|--:|---|--:|---|\n'
    + r.results.map(row).join('\n') + '\n';
}

/**
 * Every generated block: its doc, its marker name and the function that makes its Markdown from the
 * result files. A doc's blocks are written in this order; a block's name is unique across docs.
 */
export const BLOCKS = [
  // npm run bench (scripts/bench.sh: attnscope_bench natively and as wasm, wrapped by scripts/bench-report.mjs)
  { doc: 'docs/benchmarks.md', name: 'KERNELS', make: kernels },
  // node bench/attend-node.mjs > bench/results/attend-node.json
  { doc: 'docs/benchmarks.md', name: 'ATTEND-NODE', make: attendNode },
  // node bench/page.mjs > bench/results/page.json
  { doc: 'docs/benchmarks.md', name: 'PAGE', make: page },
  { doc: 'docs/benchmarks.md', name: 'PEAK', make: peak },
  // node bench/attention-node.mjs > bench/results/attention-node.json
  { doc: 'docs/benchmarks.md', name: 'ATTENTION-NODE', make: attentionNode },
  // node bench/dist-sizes.mjs > bench/results/dist-sizes.json
  { doc: 'docs/benchmarks.md', name: 'DIST-SIZES', make: distSizes },
  // node bench/page-scale.mjs > bench/results/page-scale.json
  { doc: 'docs/benchmarks.md', name: 'PAGE-SCALE', make: pageScale },
  // node --experimental-wasm-relaxed-simd bench/kernel-ab.mjs --relaxed > bench/results/relaxed-node.json
  { doc: 'docs/benchmarks.md', name: 'RELAXED-NODE', make: relaxedNode },
  // node bench/attention-chromium.mjs
  { doc: 'docs/benchmarks.md', name: 'ATTENTION-CHROMIUM', make: attentionChromium },
  // node bench/use-lite-chromium.mjs
  { doc: 'docs/benchmarks.md', name: 'USE-LITE-CHROMIUM', make: useLiteChromium },
  // node bench/train-node.mjs > bench/results/train-node.json
  { doc: 'docs/benchmarks.md', name: 'TRAIN-NODE', make: trainNode },
  // node bench/transformer-page.mjs > bench/results/transformer-page.json
  { doc: 'docs/benchmarks.md', name: 'TRANSFORMER-PAGE', make: transformerPage },
  // node bench/model.mjs > bench/results/model.json
  { doc: 'docs/benchmarks.md', name: 'MODELBENCH', make: modelPage },
  // node bench/lab.mjs (writes bench/results/lab.json)
  { doc: 'docs/benchmarks.md', name: 'LAB', make: lab },
  // node bench/lab-compare.mjs (writes bench/results/lab-compare.json)
  { doc: 'docs/benchmarks.md', name: 'LABCOMPARE', make: labCompare },
  // node bench/lab-prototypes.mjs (writes bench/results/lab-prototypes.json)
  { doc: 'docs/benchmarks.md', name: 'LAB-PROTOTYPES', make: labPrototypes },
  // node bench/limits.mjs > bench/results/limits.json
  { doc: 'docs/limits.md', name: 'LIMITS', make: limits },
  // node bench/use-lite.mjs > bench/results/use-lite.json
  { doc: 'docs/model.md', name: 'USELITEBENCH', make: useLite },
];

/** The docs that hold generated blocks. */
export const DOCS = [...new Set(BLOCKS.map((b) => b.doc))];

const markers = (name) => [`<!-- ${name}:START -->\n`, `<!-- ${name}:END -->`];

/** The text of block `name` in `text`, or null when its markers are missing. */
export function blockIn(text, name) {
  const [start, end] = markers(name);
  const i = text.indexOf(start), j = text.indexOf(end);
  return i < 0 || j < i ? null : text.slice(i + start.length, j);
}

/** `text` (the contents of `doc`) with each of its blocks made anew from the result files. */
export function render(doc, text) {
  for (const { name, make } of BLOCKS.filter((b) => b.doc === doc)) {
    if (blockIn(text, name) === null) throw new Error(`${doc} lacks the markers of ${name}`);
    const [start, end] = markers(name);
    text = text.slice(0, text.indexOf(start) + start.length) + make() + text.slice(text.indexOf(end));
  }
  return text;
}

/** Writes every generated block of every doc; returns the docs that changed. */
export function writeTables() {
  const changed = [];
  for (const doc of DOCS) {
    const path = join(ROOT, doc);
    const text = readFileSync(path, 'utf8');
    const now = render(doc, text);
    if (now !== text) { writeFileSync(path, now); changed.push(doc); }
  }
  return changed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const changed = writeTables();
  console.log(`${BLOCKS.length} tables from bench/results/ in ${DOCS.join(', ')}; ${changed.length ? `rewritten: ${changed.join(', ')}` : 'none changed'}`);
}
