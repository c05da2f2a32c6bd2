// Every table the docs show from a benchmark's result file, generated: each block sits in its doc
// between <!-- NAME:START --> and <!-- NAME:END --> and is made from the current result file(s) in
// bench/results/ by the function BLOCKS gives for NAME. `node bench/tables.mjs` rewrites every block
// of every doc (npm run bench runs it last); tests/js/bench-tables.test.mjs regenerates them in memory
// and fails when a doc differs (a number copied by hand, or a result re-run without this script).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The result files read so far (the test checks that every current file is shown by some table). */
export const read = new Set();
const result = (name) => { read.add(`${name}.json`); return JSON.parse(readFileSync(join(ROOT, 'bench/results', `${name}.json`), 'utf8')); };
const x = (v) => `${v.toFixed(2)}×`;
const range = (vs) => `${Math.min(...vs).toFixed(2)}–${Math.max(...vs).toFixed(2)}×`;
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
  let t = `Measured ${a.date.slice(0, 10)}, ${a.cpu}: \`attend()\` on a 12-word sentence pair in node ${a.node} (whole call: tokenize, embed, score, softmax, copy out), median of ${a.results[0].iterations} calls:\n\n`
    + '| options | median ms | p90 ms |\n|---|--:|--:|\n';
  for (const r of a.results) t += `| ${r.name} | ${r.median_ms.toFixed(3)} | ${r.p90_ms.toFixed(3)} |\n`;
  return t;
}

const FOUR = [[512, 64], [2048, 64], [512, 128], [2048, 128]];
const attnRow = (a, impl, n, d) => a.results.find((r) => r.impl === impl && r.n === n && r.d === d);
/** TF.js time over attnscope's in attention-node.json: the fused call ('output') or the weights path. */
function tfjsOver(a, n, d, path = 'output') {
  const ours = attnRow(a, path === 'output' ? 'attnscope attentionOutput()' : 'attnscope attention() weights+output', n, d);
  const theirs = attnRow(a, path === 'output' ? 'tfjs-wasm output' : 'tfjs-wasm weights+output', n, d);
  return ours && theirs ? theirs.median_ms / ours.median_ms : undefined;
}
const sizesOf = (a) => [...new Set(a.results.map((r) => `${r.n}|${r.d}`))].map((k) => k.split('|').map(Number));
const hasPlain = (a) => a.results.some((r) => r.impl === 'plain JS');

function attentionNode() {
  const a = result('attention-node');
  const ms = (r) => (r ? r.median_ms.toFixed(2) : '–');
  const ratio = (v) => (v === undefined ? '–' : x(v));
  const plain = hasPlain(a);
  let t = `Measured ${a.date.slice(0, 10)}, node ${a.node}, ${a.cpu}; TF.js ${a.tfjs.version} backend \`${a.tfjs.backend}\` (SIMD ${a.tfjs.simd}, multithread ${a.tfjs.threads}, ${a.tfjs.threadsCount} thread), `
    + 'computing `matMul(softmax(matMul(Q, transpose(K)) · 1/√d), V)` on tensors already in its memory, reading the result back with `dataSync()`; '
    + 'attnscope copies Q, K, V in and the result out on every call. One process, implementations interleaved round by round, medians of CPU time (`process.cpuUsage()`; '
    + `load average during the run ${a.loadavg.map((v) => v.toFixed(1)).join(', ')}) after ≥ 1.5 s of warm-up. `
    + `"× TF.js" = TF.js time / attnscope time (above 1 = attnscope faster).${plain ? '' : ' This run left out the plain JS loop (`--no-plain`).'}\n\n`
    + `| n | d | attentionOutput() ms | TF.js output ms | × TF.js | attention() weights+output ms | TF.js weights+output ms | × TF.js |${plain ? ' plain JS ms |' : ''} max \\|diff\\| vs TF.js |\n`
    + `|--:|--:|--:|--:|--:|--:|--:|--:|${plain ? '--:|' : ''}--:|\n`;
  for (const [n, d] of sizesOf(a)) {
    const ag = a.agreement.find((g) => g.n === n && g.d === d);
    const diff = ag ? (ag.attentionOutput_vs_tfjs ?? ag.attention_vs_tfjs) : undefined;
    const refused = (a.refusals || []).find((r) => r.n === n && r.d === d);
    t += `| ${n} | ${d} | ${ms(attnRow(a, 'attnscope attentionOutput()', n, d))} | ${ms(attnRow(a, 'tfjs-wasm output', n, d))} | ${ratio(tfjsOver(a, n, d))} | `
      + `${refused ? 'refused¹' : ms(attnRow(a, 'attnscope attention() weights+output', n, d))} | ${ms(attnRow(a, 'tfjs-wasm weights+output', n, d))} | ${ratio(tfjsOver(a, n, d, 'weights'))} | `
      + `${plain ? `${ms(attnRow(a, 'plain JS', n, d))} | ` : ''}${diff === undefined ? '–' : diff.toExponential(1)} |\n`;
  }
  const firstRefusal = (a.refusals || [])[0];
  if (firstRefusal) t += `\n¹ refused up front by the work budget (docs/limits.md): "${firstRefusal.refused}"\n`;
  t += '\nSmall calls from the same run (CPU time per call from batches of 50 after a 1.5 s warm-up, median):\n\n| call | median µs |\n|---|--:|\n';
  for (const c of a.small) t += `| ${c.call} | ${c.median_us.toFixed(1)} |\n`;
  return t;
}

/** The README's figures: the node table in short, and the Chromium ratios. */
function readmeAttention() {
  const a = result('attention-node'), c = result('attention-chromium');
  const plain = hasPlain(a);
  const ms = (r) => (r ? r.median_ms.toFixed(2) : '–');
  const ratio = (v) => (v === undefined ? '–' : x(v));
  let t = 'softmax(QKᵀ/√d)·V in node, attnscope\'s fused `attentionOutput()` and its weights path (`attention()` returning weights and output) '
    + `against TensorFlow.js ${a.tfjs.version}'s wasm backend (XNNPACK, SIMD, one thread)${plain ? ' and a plain JS loop' : ''}; CPU-time medians, `
    + `measured ${a.date.slice(0, 10)} on a shared ${a.cores}-core ${a.cpu} (node ${a.node}, load average ${a.loadavg[0].toFixed(1)}; \`node bench/attention-node.mjs\`):\n\n`
    + `| n | d | attentionOutput() ms | × TF.js | attention() weights+output ms | × TF.js |${plain ? ' plain JS ms |' : ''}\n|--:|--:|--:|--:|--:|--:|${plain ? '--:|' : ''}\n`;
  for (const [n, d] of sizesOf(a)) {
    t += `| ${n} | ${d} | ${ms(attnRow(a, 'attnscope attentionOutput()', n, d))} | ${ratio(tfjsOver(a, n, d))} | ${ms(attnRow(a, 'attnscope attention() weights+output', n, d))} | ${ratio(tfjsOver(a, n, d, 'weights'))} |`
      + `${plain ? ` ${ms(attnRow(a, 'plain JS', n, d))} |` : ''}\n`;
  }
  const r = c.results.map((y) => y.tfjs_over_attnscope);
  t += `\nIn Chromium, where the package loads its relaxed-SIMD build, TF.js took ${range(r)} as long as \`attentionOutput()\` `
    + `at ${c.results.map((y) => `${y.n} × ${y.d}`).join(', ')} (measured ${c.date}; \`node bench/attention-chromium.mjs\`).\n`;
  return t;
}

function distSizes() {
  const r = result('dist-sizes'), d = r.files;
  let t = `Package files (bytes), measured ${r.date.slice(0, 10)}:\n\n| file | raw | gzip |\n|---|--:|--:|\n`;
  for (const [f, v] of Object.entries(d)) if (!f.endsWith('.d.ts')) t += `| \`${f}\` | ${v.raw.toLocaleString('en')} | ${v.gzip.toLocaleString('en')} |\n`;
  return t;
}

// ---- the demo page (bench/page.mjs, bench/page-scale.mjs)

function page() {
  const pg = result('page');
  const ms = (v) => (v === null || v === undefined ? '–' : v.toFixed(1));
  let t = `Measured ${pg.date}: the demo in ${pg.browser} (headless, software rendering, ${pg.viewport}), after ${pg.warmup_ms / 1000} s of typing to warm up; `
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
  if (r.frames_median === undefined) {
    t += '\nThis run predates the page\'s worker (web/model-worker.js): its steps are those of the page before it, and it records neither the longest '
      + 'main-thread task nor the frames drawn meanwhile, which bench/model.mjs now reports.\n';
  }
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
  const base = r.results[0].tfjs_over_baseline !== undefined;
  return `Measured ${r.date} in ${r.browser} (TF.js ${r.tfjs.version}, ${r.tfjs.backend}, SIMD ${r.tfjs.simd}, threads ${r.tfjs.threads}; `
    + `attnscope's default module there: ${r.attnscope}), ${r.cpu}, ${r.cores} cores, ${load(r)}; medians of ${r.batches} interleaved batches`
    + `${base ? ', with an earlier build (the one given as `--baseline`, its default module) as a fourth case in the same page' : ''}:\n\n`
    + `| n × d | relaxed ms | SIMD ms | TF.js ms | TF.js / relaxed | TF.js / SIMD | SIMD / relaxed |${base ? ' build before ms | TF.js / build before |' : ''} max \\|diff\\| vs TF.js |\n`
    + `|---|--:|--:|--:|--:|--:|--:|${base ? '--:|--:|' : ''}--:|\n`
    + r.results.map((c) => {
      const [fast, plain, tf, before] = Object.values(c.ms);
      return `| ${c.n} × ${c.d} | ${fast} | ${plain} | ${tf} | **${x(c.tfjs_over_attnscope)}** | ${x(c.tfjs_over_attnscope_simd)} | ${x(c.relaxed_speedup)} |`
        + `${base ? ` ${before} | ${x(c.tfjs_over_baseline)} |` : ''} ${e1(c.max_abs_diff_vs_tfjs)} |`;
    }).join('\n') + '\n';
}

function attendChromium() {
  const r = result('attend-chromium');
  const base = r.results[0].tfjs_over_baseline !== undefined;
  const c0 = r.results[0];
  return `Measured ${r.date} in ${r.browser} (TF.js ${r.tfjs.version}, ${r.tfjs.backend}, SIMD ${r.tfjs.simd}, threads ${r.tfjs.threads}; `
    + `attnscope's default module there: ${r.attnscope}), ${r.cpu}, ${r.cores} cores, ${load(r)}; ${c0.heads} heads of ${c0.d_head}, W_o to ${c0.d_out} columns; `
    + `medians of ${r.batches} interleaved batches${base ? ', with an earlier build (`--baseline`) as a fourth case' : ''}:\n\n`
    + `| words | tokens | attnscope relaxed ms | attnscope SIMD ms | TF.js ms | TF.js / relaxed | TF.js / SIMD |${base ? ' build before ms | TF.js / build before |' : ''} weights max \\|diff\\| | output max \\|diff\\| |\n`
    + `|--:|---|--:|--:|--:|--:|--:|${base ? '--:|--:|' : ''}--:|--:|\n`
    + r.results.map((c) => {
      const [fast, plain, tf, before] = Object.values(c.ms);
      return `| ${c.words}${c.cross ? ' (a pair)' : ''} | ${c.nq} × ${c.nk} | ${fast} | ${plain} | ${tf} | **${x(c.tfjs_over_attnscope)}** | ${x(c.tfjs_over_attnscope_simd)} |`
        + `${base ? ` ${before} | ${x(c.tfjs_over_baseline)} |` : ''} ${e1(c.max_abs_diff_vs_tfjs.weights)} | ${e1(c.max_abs_diff_vs_tfjs.output)} |`;
    }).join('\n') + '\n';
}

function useLiteChromium() {
  const r = result('use-lite-chromium');
  const base = r.results[0].tfjs_over_baseline !== undefined;
  return `Measured ${r.date} in ${r.browser}, ${r.cpu}, ${r.cores} cores, ${load(r)}; medians of ${r.runs} interleaved batches`
    + `${base ? ', with an earlier build (the one given as `--baseline`, relaxed SIMD) as a fourth case in the same page' : ''}:\n\n`
    + `| tokens | attnscope relaxed ms | attnscope SIMD ms | TF.js graph ms | TF.js / relaxed | TF.js / SIMD |${base ? ' build before ms | TF.js / build before |' : ''} embedding max \\|diff\\| |\n`
    + `|--:|--:|--:|--:|--:|--:|${base ? '--:|--:|' : ''}--:|\n`
    + r.results.map((c) => {
      const [fast, plain, tf, before] = Object.values(c.ms);
      return `| ${c.tokens} | ${fast} | ${plain} | ${tf} | **${x(c.tfjs_over_attnscope)}** | ${x(c.tfjs_over_attnscope_simd)} |`
        + `${base ? ` ${before} | ${x(c.tfjs_over_baseline)} |` : ''} ${e1(c.embedding_max_abs_diff)} |`;
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
    + `(${mem.map((m) => m.bytes_in_use.toLocaleString('en')).join(', ')} every ${mem[0].steps} steps): `
    + `${(mem[mem.length - 1].bytes_in_use - r.memory.before).toLocaleString('en')} bytes more.\n`;
}

function trainChromium() {
  const r = result('train-chromium');
  return `Measured ${r.date} in ${r.browser}, ${r.cpu}, ${r.cores} cores, ${load(r)}; one page, not cross-origin isolated; attnscope ${r.attnscope} and ${r.plain}, `
    + `TF.js ${r.tfjs.version} (${r.tfjs.backend}, SIMD ${r.tfjs.simd}, multithreading ${r.tfjs.threads}); wall-time medians of ${r.rounds} interleaved steps:\n\n`
    + '| one step, batch 16 × 64 | ms |\n|---|--:|\n'
    + Object.entries(r.ms).map(([k, v]) => `| ${k} | ${v} |`).join('\n')
    + `\n| **TF.js / attnscope (${r.attnscope})** | **${x(r.tfjs_over_attnscope)}** |\n| TF.js / attnscope (${r.plain}) | ${x(r.tfjs_over_attnscope_simd)} |\n\n`
    + `Loss before training, from the same parameters: attnscope ${r.loss_before_training.attnscope.toFixed(6)}, TF.js ${r.loss_before_training.tfjs.toFixed(6)}. `
    + `Relaxed SIMD against plain SIMD on a step: ${x(r.relaxed_speedup)}.\n`;
}

function labPage() {
  const r = result('lab-page');
  let t = `Measured ${r.date} in ${r.browser}, ${r.cpu}, ${r.cores} cores, ${load(r)}; ${r.task}: from a click on *Train* to 500 steps with the plots live, `
    + '*Start over* between runs; long tasks are the browser\'s (over 50 ms):\n\n'
    + '| run | ms to 500 steps | frames drawn | long tasks | longest task ms |\n|--:|--:|--:|--:|--:|\n';
  r.runs.forEach((y, i) => { t += `| ${i + 1} | ${Math.round(y.ms_to_500_steps)} | ${y.frames} | ${y.long_tasks} | ${y.longest_task_ms} |\n`; });
  const c = r.compare;
  t += `\nA full *Compare* (${c.task}): ${c.runs.map((y) => Math.round(y.ms_to_compare).toLocaleString('en')).join(', ')} ms, `
    + `longest main-thread task ${c.runs.map((y) => y.longest_task_ms).join(', ')} ms (0 = none over 50 ms).\n`;
  return t;
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

// ---- TF.js part by part (bench/tfjs-parts.mjs), one score against scaled-dot (bench/score-ratio.mjs)

function tfjsParts() {
  const r = result('tfjs-parts');
  const f3 = (v) => v.toFixed(3);
  let t = `Measured ${r.date.slice(0, 10)}, node ${r.node}, ${r.cpu}, ${load(r)}; TF.js ${r.tfjs.version} (${r.tfjs.backend}, SIMD ${r.tfjs.simd}, ${r.tfjs.threadsCount} thread); `
    + `CPU-time medians of ${r.rounds} interleaved rounds. Every TF.js part runs on tensors already in its memory and its result is disposed, no read-back, `
    + 'except the whole chain (as the table above times it); GFLOP/s for the products (2n²d flops each):\n\n'
    + '| n | d | transpose(K) ms | matMul(Q, Kᵀ) ms | mul by 1/√d ms | softmax ms | matMul(P, V) ms | whole chain + dataSync ms | attentionOutput() ms | × TF.js |\n'
    + '|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n';
  for (const c of r.results) {
    t += `| ${c.n} | ${c.d} | ${f3(c['tfjs transpose(K)'])} | ${f3(c['tfjs matMul(Q, Kt)'])} (${c.gflops_matMul_QKt.toFixed(1)} GFLOP/s) | ${f3(c['tfjs mul(S, 1/sqrt(d))'])} | `
      + `${f3(c['tfjs softmax(S)'])} | ${f3(c['tfjs matMul(P, V)'])} (${c.gflops_matMul_PV.toFixed(1)}) | ${f3(c['tfjs whole chain + dataSync'])} | `
      + `${f3(c['attnscope attentionOutput()'])} (${c.gflops_attnscope_whole.toFixed(1)}) | ${x(c.tfjs_over_attnscope)} |\n`;
  }
  return t;
}

function scoreRatio() {
  const r = result('score-ratio');
  const build = r.results[0].build;
  const rows = r.results.filter((c) => c.build === build);
  const others = new Set(r.results.map((c) => c.build)).size - 1;
  let t = `Measured ${r.date.slice(0, 10)}, node ${r.node}, ${r.cpu}, ${load(r)}; n = ${r.n}, d = ${r.d}, the score and scaled-dot `
    + `interleaved batch by batch (${r.batches} batches), CPU-time medians:\n\n`
    + '| call | score | scaled-dot ms | score ms | ratio of the medians | median of the batches\' ratios |\n|---|---|--:|--:|--:|--:|\n';
  for (const c of rows) t += `| ${c.call}() | ${c.score} | ${c.scaled_dot_ms.toFixed(3)} | ${c.score_ms.toFixed(3)} | ${x(c.ratio_of_medians)} | ${x(c.median_batch_ratio)} |\n`;
  if (others) t += `\nThe run timed ${others === 1 ? 'an earlier build' : `${others} earlier builds`} beside this one, not shown (What we tried has what it gave).\n`;
  return t;
}

// ---- the demo page: a long paste against a short key sentence (bench/paste.mjs), the element (bench/element.mjs)

function paste() {
  const r = result('paste');
  const ms = (v) => v.toFixed(1);
  const row = (label, p) => `| ${label} | ${p.runs} | ${p.long_tasks_per_paste_median} | ${p.longest_task_median_ms} (${p.longest_task_max_ms}) | `
    + `${ms(p.paste_to_idle_median_ms)} | ${ms(p.traced_longest_task_wall_median_ms)} / ${ms(p.traced_longest_task_cpu_median_ms)} (${ms(p.traced_longest_task_cpu_max_ms)}) |`;
  const figures = (p) => Object.entries(p.own_measures_longest_median_ms).filter(([, v]) => v >= 1).map(([k, v]) => `${k} ${ms(v)}`).join(', ');
  return `Measured ${r.date} in ${r.browser}, ${r.cpu}, ${r.cores} cores, ${load(r)}; 2,000 words pasted into the query against “${r.keys}”, `
    + `into a page just loaded and into a warm one (after 1 s of pastes); long tasks are the PerformanceObserver's (over 50 ms; 0 = none); `
    + 'each paste also ran under a trace, which gives every main-thread task\'s CPU time beside its wall time; medians:\n\n'
    + '| paste | pastes | long tasks per paste | longest task ms (largest) | paste → idle ms | traced longest task, wall / CPU ms (largest CPU) |\n|---|--:|--:|--:|--:|--:|\n'
    + `${row('into a page just loaded', r.first_paste)}\n${row('into a warm page', r.warm_paste)}\n\n`
    + `Traced tasks over 50 ms: ${r.traced_tasks_over_50ms.wall} by wall time, ${r.traced_tasks_over_50ms.cpu} by CPU time. `
    + `The page's own drawing per figure, longest per paste (median ms, figures over 1 ms): first paste ${figures(r.first_paste)}; warm ${figures(r.warm_paste)}.\n`;
}

function element() {
  const r = result('element');
  const row = (label, c) => `| ${label} | ${c.runs} | ${c.firstFigureMedianMs.toLocaleString('en')} | ${c.firstFigureMinMs.toLocaleString('en')}–${c.firstFigureMaxMs.toLocaleString('en')} |`;
  return `Measured ${r.date} in Chromium ${r.chromium} (${r.machine}) with \`${r.command}\`: \`${r.file}\` is ${r.bytes.toLocaleString('en')} bytes `
    + `(${r.gzipBytes.toLocaleString('en')} gzipped). From navigation to the first figure drawn, a note opened from file:// in a fresh browser context each time:\n\n`
    + '| note | loads | median ms | min–max ms |\n|---|--:|--:|--:|\n'
    + `${row('one <attn-scope>', r.loadFromFile.one)}\n${row('fifty <attn-scope> elements', r.loadFromFile.fifty)}\n`;
}

// ---- a first visit on a classroom network (bench/first-plot.mjs)

function firstPlot() {
  const r = result('first-plot');
  const n = r.network;
  const ms = (v) => v.toLocaleString('en');
  let t = `Measured ${r.date} in ${r.browser}, ${r.cpu}, ${r.cores} cores, ${load(r)}; the network at ${n.downloadThroughput * 8 / 1e6} Mbit/s down, `
    + `${n.uploadThroughput * 8 / 1e6} up, ${n.latency} ms latency, the cache empty, ${r.loads} loads of each build, interleaved; from navigation, medians in ms:\n\n`
    + '| build | first plots drawn | the 50,000 words in use | every load: first plots |\n|---|--:|--:|---|\n';
  for (const b of r.results) {
    const name = b.build === 'this build' ? 'the first vocabulary (10,000 words and the examples\'), the 50,000 behind it' : 'before: the 50,000 words first';
    t += `| ${name} | ${ms(b.firstPlot_ms)} | ${ms(b.fullVocabulary_ms)} | ${b.firstPlot_all.map(ms).join(', ')} |\n`;
  }
  return t;
}

// ---- the trained model in the demo (bench/model-page.mjs)

function demoModel() {
  const r = result('model-page');
  const names = { trained: 'the trained model', surgery: 'one head re-scored by cosine, one knocked out (three encodes a keystroke)' };
  const ms = (v) => v.toFixed(1);
  let t = `Measured ${r.date} in ${r.browser}, ${r.cpu}, ${r.cores} cores, ${load(r)}; “${r.sentence}” typed one key at a time; `
    + 'the page\'s own measures, medians in ms:\n\n'
    + '| case | keystrokes | keystroke → figures drawn | → next frame painted | worker, in all | of which encode | surgery | flow |\n|---|--:|--:|--:|--:|--:|--:|--:|\n';
  for (const [k, v] of Object.entries(r.runs)) {
    const m = v.medianMs;
    t += `| ${names[k] ?? k} | ${v.keystrokes} | ${ms(m.keyToDrawn)} | ${ms(m.keyToFrame)} | ${ms(m.workerTotal)} | ${ms(m.encode)} | ${ms(m.surgery)} | ${ms(m.flow)} |\n`;
  }
  return t;
}

// ---- the transformer's tasks in node (bench/transformer-tasks.mjs)

function transformerTasks() {
  const r = result('transformer-tasks');
  const pct = (v) => `${(100 * v).toFixed(1)}%`;
  let t = `${r.note}\n\n`
    + '| task | seed | target reached | steps trained | held-out loss | held-out accuracy | measured, load average |\n|---|--:|---|--:|--:|--:|---|\n';
  for (const run of r.runs) {
    for (const e of run.results) {
      const reached = e.reached ? `at step ${e.reached.step.toLocaleString('en')} (${e.reached.seconds} s)` : e.task === 'characters' ? `no target (${e.bitsPerChar} bits per character)` : 'no';
      t += `| ${e.task} | ${e.seed} | ${reached} | ${e.final.step.toLocaleString('en')} | ${e.heldLoss} | ${pct(e.heldAccuracy)} | ${run.date.slice(0, 16).replace('T', ' ')}, ${run.loadAverage[0]} |\n`;
    }
  }
  t += `\nCommands:\n\n${r.commands.map((c) => `- \`${c}\``).join('\n')}\n`;
  return t;
}

// ---- the pool of workers (bench/pool.mjs, bench/pool-cpu.mjs, bench/pool-attend.mjs)

function pool() {
  const r = result('pool');
  const shown = (cfg) => !cfg.name.includes('(baseline)');
  const names = r.results[0].configs.filter(shown).map((c) => c.name);
  let t = `Measured ${r.date.slice(0, 10)}, node ${r.node}, ${r.cpu}, ${r.cores} cores (${r.isa}), load average ${r.load_average_before[0]} before and `
    + `${r.load_average_after[0]} after; wall-clock medians of ${r.results[0].rounds} rounds in which the configurations take turns call by call, after ≥ ${r.warmup_ms / 1000} s `
    + `of warm-up each; the text is ${r.attend_tokens.toLocaleString('en')} tokens. In brackets: one scope's time over the configuration's.\n\n`
    + `| case | ${names.join(' | ')} |\n|---|${names.map(() => '--:').join('|')}|\n`;
  for (const c of r.results) {
    t += `| ${c.case} | ${names.map((n) => {
      const cfg = c.configs.find((y) => y.name === n);
      return cfg ? `${cfg.median_ms.toFixed(1)} ms${cfg.workers ? ` (${x(cfg.speedup_vs_scope)})` : ''}` : '–';
    }).join(' | ')} |\n`;
  }
  if (r.baseline) t += '\nThe run also timed a pool from an earlier build in the same rounds (`--baseline`), not shown (What we tried has what it gave).\n';
  return t;
}

function poolCpu() {
  const r = result('pool-cpu');
  const ms = (v) => v.toFixed(1);
  let t = `Measured ${r.date.slice(0, 10)}, node ${r.node}, ${r.cpu}, ${r.cores} cores, load average ${r.load_average_before[0]} before and ${r.load_average_after[0]} after; `
    + `CPU time of each thread (Linux /proc, 10 ms ticks) summed over ${r.rows[0].calls} calls, per call; the estimate for two idle cores is the busier worker plus the calling `
    + 'thread, against one scope\'s CPU time:\n\n'
    + '| case | one scope CPU ms | pool of 2: CPU ms, all threads | calling thread | the two workers | estimated ms on two idle cores | estimated speed-up |\n|---|--:|--:|--:|--:|--:|--:|\n';
  for (const c of r.rows) {
    t += `| ${c.case} | ${ms(c.one_scope.cpu_ms)} | ${ms(c.pool_of_2.cpu_ms)} | ${ms(c.pool_of_2.calling_thread_ms)} | ${c.pool_of_2.worker_ms.map(ms).join(', ')} | `
      + `${ms(c.estimated_two_idle_cores_ms)} | ${x(c.estimated_speedup)} |\n`;
  }
  return t;
}

function poolAttend() {
  const r = result('pool-attend');
  const ms = (v) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
  let t = `Measured ${r.date.slice(0, 10)}, node ${r.node}, ${r.cpu}, ${r.cores} cores, load average ${r.load_average_before[0]} before and ${r.load_average_after[0]} after `
    + `(${r.note}); ${r.tokens.toLocaleString('en')} tokens, d = ${r.d_head} per head, medians of ${r.rounds} interleaved rounds:\n\n`
    + '| step | median ms | min–max ms |\n|---|--:|--:|\n';
  for (const c of r.rows) t += `| ${c.name} | ${ms(c.median_ms)} | ${ms(c.min_ms)}–${ms(c.max_ms)} |\n`;
  return t;
}

// ---- attention flow (bench/flow.mjs), in docs/flow.md

function flow() {
  const r = result('flow');
  const notes = { '2x4x128': 'USE-Lite\'s largest input', '2x1x812': 'largest accepted, 2 layers', '3x4x53': 'largest accepted, 3 layers',
    '4x4x45': 'largest accepted, 4 layers', '12x4x30': 'largest accepted, 12 layers' };
  const ms = (v) => (v < 1 ? v.toFixed(2) : v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en'));
  let t = `node ${r.node}, ${r.cpu}, ${r.cores} cores, load average ${r.loadavg[0].toFixed(0)} at the start (${r.what}):\n\n`
    + '| stack (layers × heads × tokens) | `attentionFlow`, median ms (min–max, runs) | `rollout`, median ms |\n|---|---|--:|\n';
  for (const c of r.results) {
    const note = notes[`${c.layers}x${c.heads}x${c.n}`];
    t += `| ${c.layers} × ${c.heads} × ${c.n}${note ? ` (${note})` : ''} | ${ms(c.flow.median_ms)} (${ms(c.flow.min_ms)}–${ms(c.flow.max_ms)}, ${c.flow.runs}) | ${ms(c.rollout.median_ms)} |\n`;
  }
  return t;
}

// ---- where the goals stand, from the current files

const yesNo = (ok) => (ok ? 'yes' : 'no');
const r2 = (v) => Number(v.toFixed(2));
const day = (r) => String(r.date).slice(0, 10);

function goals() {
  const an = result('attention-node'), ch = result('attention-chromium'), wasm = result('wasm-node'), nat = result('native');
  const sr = result('score-ratio'), pl = result('pool'), ul = result('use-lite-chromium');
  const rows = [];
  const size = ([n, d]) => `${n} × ${d}`;
  const fused = FOUR.map((s) => [s, tfjsOver(an, ...s)]).filter(([, v]) => v !== undefined);
  const atLeast = (list, goal) => list.filter(([, v]) => r2(v) >= goal).map(([s]) => size(s)).join(', ') || 'none';
  const over15 = (list) => atLeast(list, 1.5);
  rows.push(['fused `attentionOutput()` against TF.js in node, n ∈ {512, 2048} × d ∈ {64, 128}', '≥ 1.3× (the issue\'s later goal: 1.5×)',
    fused.map(([s, v]) => `${x(v)} (${size(s)})`).join(', '), day(an),
    `1.3×: ${yesNo(fused.every(([, v]) => r2(v) >= 1.3))}; 1.5×: at ${over15(fused)}`]);
  const chr = ch.results.map((c) => [[c.n, c.d], c.tfjs_over_attnscope]);
  rows.push(['the same in Chromium, the relaxed-SIMD build the page loads', '≥ 1.5× (the issue\'s later goal: 1.8×)', chr.map(([s, v]) => `${x(v)} (${size(s)})`).join(', '), day(ch),
    `1.5×: at ${over15(chr)}; 1.8×: at ${atLeast(chr, 1.8)}`]);
  const weights = sizesOf(an).map((s) => tfjsOver(an, ...s, 'weights')).filter((v) => v !== undefined);
  const refused = (an.refusals || []).map((r) => `${r.n} × ${r.d}`);
  rows.push(['weights path `attention()` against TF.js in node', '≥ 1.0×', `${range(weights)}${refused.length ? `; ${refused.join(', ')} refused by the work budget` : ''}`,
    day(an), yesNo(r2(Math.min(...weights)) >= 1) + (refused.length ? ', where accepted' : '')]);
  const share = (cases) => cases.find((c) => c.case === 'f32_gemm_nt' && c.variant === 'simd' && c.of_peak !== undefined).of_peak;
  rows.push(['score GEMM\'s share of the SIMD peak, n = 512, d = 64', '≥ 60%', `${(100 * share(wasm.cases)).toFixed(0)}% (wasm), ${(100 * share(nat.cases)).toFixed(0)}% (native SSE2)`,
    day(wasm), yesNo(share(wasm.cases) >= 0.6)]);
  const fusedScores = wasm.cases.filter((c) => c.case.startsWith('attention_output_') && c.case !== 'attention_output_additive');
  const base = fusedScores.find((c) => c.case === 'attention_output_scaled-dot');
  const worst = fusedScores.map((c) => [c.case.slice('attention_output_'.length), c.median_us / base.median_us]).sort((a, b) => b[1] - a[1]);
  const over = worst.filter(([, v]) => r2(v) > 1.3);
  rows.push(['every score but additive (O(n²h) by definition) within 1.3× of scaled-dot, fused, n = 512', '≤ 1.3×',
    `worst: ${(over.length ? over : worst.slice(0, 1)).map(([k, v]) => `${k} ${x(v)}`).join(', ')} (kernel benchmark)`, day(wasm), yesNo(!over.length)]);
  const srRows = sr.results.filter((c) => c.build === sr.results[0].build);
  const srOf = (call) => srRows.find((c) => c.call === call);
  rows.push([`${srRows[0].score} against scaled-dot, interleaved in one process, n = ${sr.n}`, '≤ 1.3×',
    `fused ${x(srOf('attentionOutput').ratio_of_medians)}, \`scores()\` ${x(srOf('scores').ratio_of_medians)}`, day(sr),
    `fused: ${yesNo(r2(srOf('attentionOutput').ratio_of_medians) <= 1.3)}; \`scores()\`: ${yesNo(r2(srOf('scores').ratio_of_medians) <= 1.3)}`]);
  const small = (prefix) => an.small.find((c) => c.call.startsWith(prefix)).median_us;
  rows.push(['`attention()` at n = 16, d = 64; `attend()` on a 12-word pair', '≤ 10 µs; ≤ 40 µs',
    `${small('attention() n=16 d=64, all results').toFixed(1)} µs; ${small('attend() 12-word pair').toFixed(1)} µs`, day(an),
    `${yesNo(small('attention() n=16 d=64, all results') <= 10)}; ${yesNo(small('attend() 12-word pair') <= 40)}`]);
  rows.push(['fused memory', 'n = 16,384, d = 64 in < 64 MB of wasm memory; n = 65,536 keys work', 'asserted by tests/js/attention-output.test.mjs', '–', 'yes (tested)']);
  const two = (match) => pl.results.find((c) => c.case.startsWith(match)).configs.find((c) => c.name === 'pool of 2').speedup_vs_scope;
  rows.push(['a pool of 2 workers against one scope, 2 cores', '≥ 1.7× for `attentionOutput` n = 4,096 and for one `attend` of 1,000 words × 8 heads',
    `\`attentionOutput\` ${x(two('attentionOutput'))}, \`attend\` ${x(two('attend, 1,000 words, 8 heads (one call)'))} (wall time)`, day(pl),
    `\`attentionOutput\` ${yesNo(r2(two('attentionOutput')) >= 1.7)}; \`attend\` ${yesNo(r2(two('attend, 1,000 words, 8 heads (one call)')) >= 1.7)}`]);
  const ulr = ul.results.map((c) => [c.tokens, c.tfjs_over_attnscope]);
  rows.push(['the trained model\'s `encode()` against TF.js on the original graph, in Chromium', '≥ 2×', ulr.map(([n, v]) => `${x(v)} (${n} tokens)`).join(', '), day(ul),
    `at ${ulr.filter(([, v]) => r2(v) >= 2).map(([n]) => `${n} tokens`).join(', ') || 'none'}`]);
  return '| goal | target | measured | on | met? |\n|---|---|---|---|---|\n' + rows.map((r) => `| ${r.join(' | ')} |`).join('\n') + '\n';
}

function pageGoals() {
  const ps = result('page-scale'), pg = result('page'), pa = result('paste'), md = result('model');
  const psRow = (start) => ps.results.find((r) => r.name.startsWith(start));
  const heat = psRow('paste 2,000 × 2,000 tokens → heatmap'), every = psRow('paste 2,000 × 2,000 tokens → every figure');
  const frame = psRow('zoom and pan, 2,000 × 2,000: drawing one frame'), long = psRow('main-thread long tasks'), own = psRow('attnscope\'s longest');
  const key = pg.results.find((r) => r.tokensAsked === 128), keyPs = psRow('keystroke → heatmap redrawn, 128 tokens');
  const mh = pg.results.find((r) => r.manyHeads);
  const grid = md.results.find((r) => r.name === 'file dropped → grid drawn');
  const fpr = result('first-plot'), fp = fpr.results.find((r) => r.build === 'this build');
  const pasteLongest = Math.max(pa.first_paste.longest_task_max_ms, pa.warm_paste.longest_task_max_ms);
  const rows = [
    ['paste 2,000 × 2,000 tokens → first complete picture', '< 1 s', `heatmap ${Math.round(heat.median_ms)} ms, every figure ${Math.round(every.median_ms)} ms (medians)`, day(ps), yesNo(heat.median_ms < 1000)],
    ['zoom and pan, 2,000 × 2,000', 'frames < 16 ms', `${frame.median_ms} ms to draw a frame (p90 ${frame.p90_ms})`, day(ps), yesNo(frame.p90_ms < 16)],
    ['keystroke → heatmap redrawn, 128 tokens', '< 16 ms', `medians ${key.update_median_ms} ms (page benchmark), ${keyPs.median_ms} ms (long documents)`, day(pg), yesNo(key.update_median_ms < 16 && keyPs.median_ms < 16)],
    ['main-thread tasks while a 2,000-token document computes', 'none over 50 ms', `${long.longtasks_per_paste} per paste; attnscope's longest task per paste median ${own.median_ms} ms`, day(ps), yesNo(long.longtasks_per_paste === 0)],
    ['a change of scoring function with 10 heads of 64 × 64', 'within a frame (16.7 ms)', `longest main-thread task per change median ${mh.main_longest_task_median_ms.toFixed(1)} ms (p90 ${mh.main_longest_task_p90_ms.toFixed(1)})`, day(pg),
      mh.main_longest_task_median_ms < 16.7 ? (mh.main_longest_task_p90_ms < 16.7 ? 'yes' : 'the median') : 'no'],
    ['a 2,000-word paste against a 7-token key sentence', 'no task over 50 ms', `longest task ${pasteLongest} ms over ${pa.first_paste.runs + pa.warm_paste.runs} pastes (0 = none over 50 ms)`, day(pa), yesNo(pasteLongest === 0)],
    ['the model page: a 151 MB file dropped → the grid drawn', '< 1.5 s', `${Math.round(grid.median_ms).toLocaleString('en')} ms (median)`, day(md), yesNo(grid.median_ms < 1500)],
    ['a first visit at 20 Mbit/s + 40 ms → the first plots', '≤ 2 s', `${fp.firstPlot_ms.toLocaleString('en')} ms (median; the 50,000 words in use at ${fp.fullVocabulary_ms.toLocaleString('en')} ms)`, day(fpr), yesNo(fp.firstPlot_ms <= 2000)],
  ];
  return '| goal | target | measured | on | met? |\n|---|---|---|---|---|\n' + rows.map((r) => `| ${r.join(' | ')} |`).join('\n') + '\n';
}

/**
 * The current result file of every benchmark (one each: a run of an experiment that is not the
 * benchmark's present result is summarized under "What we tried" in docs/benchmarks.md, not kept), and
 * the command that writes it. tests/js/bench-tables.test.mjs checks that bench/results/ holds exactly
 * these and that some table shows each of them.
 */
export const RESULTS = {
  'native.json': 'npm run bench (build/native/bench/attnscope_bench, wrapped by scripts/bench-report.mjs)',
  'wasm-node.json': 'npm run bench (node --no-liftoff build/wasm/bench/attnscope_bench.js, wrapped by scripts/bench-report.mjs)',
  'attention-node.json': 'node bench/attention-node.mjs > bench/results/attention-node.json',
  'tfjs-parts.json': 'node bench/tfjs-parts.mjs > bench/results/tfjs-parts.json',
  'score-ratio.json': 'node bench/score-ratio.mjs --score idw > bench/results/score-ratio.json',
  'relaxed-node.json': 'node --experimental-wasm-relaxed-simd bench/kernel-ab.mjs --relaxed > bench/results/relaxed-node.json',
  'attention-chromium.json': 'node bench/attention-chromium.mjs',
  'attend-chromium.json': 'node bench/attend-chromium.mjs',
  'attend-node.json': 'node bench/attend-node.mjs > bench/results/attend-node.json',
  'dist-sizes.json': 'node bench/dist-sizes.mjs > bench/results/dist-sizes.json',
  'limits.json': 'node bench/limits.mjs > bench/results/limits.json',
  'flow.json': 'node bench/flow.mjs > bench/results/flow.json',
  'pool.json': 'node bench/pool.mjs',
  'pool-cpu.json': 'node bench/pool-cpu.mjs',
  'pool-attend.json': 'node bench/pool-attend.mjs',
  'page.json': 'node bench/page.mjs > bench/results/page.json',
  'page-scale.json': 'node bench/page-scale.mjs > bench/results/page-scale.json',
  'paste.json': 'node bench/paste.mjs --out bench/results/paste.json',
  'element.json': 'node bench/element.mjs',
  'first-plot.json': 'node bench/first-plot.mjs --web DIR > bench/results/first-plot.json',
  'model-page.json': 'node bench/model-page.mjs > bench/results/model-page.json',
  'model.json': 'node bench/model.mjs > bench/results/model.json',
  'use-lite.json': 'node bench/use-lite.mjs > bench/results/use-lite.json',
  'use-lite-chromium.json': 'node bench/use-lite-chromium.mjs',
  'train-node.json': 'node bench/train-node.mjs > bench/results/train-node.json',
  'train-chromium.json': 'node bench/train-chromium.mjs',
  'transformer-page.json': 'node bench/transformer-page.mjs > bench/results/transformer-page.json',
  'transformer-tasks.json': 'node bench/transformer-tasks.mjs',
  'lab.json': 'node bench/lab.mjs',
  'lab-compare.json': 'node bench/lab-compare.mjs',
  'lab-page.json': 'node bench/lab-page.mjs > bench/results/lab-page.json',
  'lab-prototypes.json': 'node bench/lab-prototypes.mjs',
};

/**
 * Every generated block: its doc, its marker name and the function that makes its Markdown from the
 * result files. A block's name is unique across the docs.
 */
export const BLOCKS = [
  { doc: 'docs/benchmarks.md', name: 'GOALS', make: goals },
  { doc: 'docs/benchmarks.md', name: 'PAGE-GOALS', make: pageGoals },
  { doc: 'docs/benchmarks.md', name: 'KERNELS', make: kernels },
  { doc: 'docs/benchmarks.md', name: 'PEAK', make: peak },
  { doc: 'docs/benchmarks.md', name: 'ATTENTION-NODE', make: attentionNode },
  { doc: 'docs/benchmarks.md', name: 'TFJS-PARTS', make: tfjsParts },
  { doc: 'docs/benchmarks.md', name: 'SCORE-RATIO', make: scoreRatio },
  { doc: 'docs/benchmarks.md', name: 'RELAXED-NODE', make: relaxedNode },
  { doc: 'docs/benchmarks.md', name: 'ATTENTION-CHROMIUM', make: attentionChromium },
  { doc: 'docs/benchmarks.md', name: 'ATTEND-CHROMIUM', make: attendChromium },
  { doc: 'docs/benchmarks.md', name: 'ATTEND-NODE', make: attendNode },
  { doc: 'docs/benchmarks.md', name: 'DIST-SIZES', make: distSizes },
  { doc: 'docs/benchmarks.md', name: 'POOL', make: pool },
  { doc: 'docs/benchmarks.md', name: 'POOL-CPU', make: poolCpu },
  { doc: 'docs/benchmarks.md', name: 'POOL-ATTEND', make: poolAttend },
  { doc: 'docs/benchmarks.md', name: 'PAGE', make: page },
  { doc: 'docs/benchmarks.md', name: 'PAGE-SCALE', make: pageScale },
  { doc: 'docs/benchmarks.md', name: 'PASTE', make: paste },
  { doc: 'docs/benchmarks.md', name: 'ELEMENT', make: element },
  { doc: 'docs/benchmarks.md', name: 'FIRST-PLOT', make: firstPlot },
  { doc: 'docs/benchmarks.md', name: 'DEMO-MODEL', make: demoModel },
  { doc: 'docs/benchmarks.md', name: 'USE-LITE-CHROMIUM', make: useLiteChromium },
  { doc: 'docs/benchmarks.md', name: 'TRAIN-NODE', make: trainNode },
  { doc: 'docs/benchmarks.md', name: 'TRAIN-CHROMIUM', make: trainChromium },
  { doc: 'docs/benchmarks.md', name: 'TRANSFORMER-PAGE', make: transformerPage },
  { doc: 'docs/benchmarks.md', name: 'TRANSFORMER-TASKS', make: transformerTasks },
  { doc: 'docs/benchmarks.md', name: 'MODELBENCH', make: modelPage },
  { doc: 'docs/benchmarks.md', name: 'LAB-PAGE', make: labPage },
  { doc: 'docs/benchmarks.md', name: 'LAB', make: lab },
  { doc: 'docs/benchmarks.md', name: 'LABCOMPARE', make: labCompare },
  { doc: 'docs/benchmarks.md', name: 'LAB-PROTOTYPES', make: labPrototypes },
  { doc: 'docs/limits.md', name: 'LIMITS', make: limits },
  { doc: 'docs/flow.md', name: 'FLOW', make: flow },
  { doc: 'docs/model.md', name: 'USELITEBENCH', make: useLite },
  { doc: 'README.md', name: 'README-ATTENTION', make: readmeAttention },
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
