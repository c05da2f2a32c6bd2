// The tables docs/benchmarks.md shows for the benchmarks that keep one current result file: each is
// generated from that file (bench/results/NAME.json) between the markers <!-- NAME:START --> and
// <!-- NAME:END -->. `node bench/tables.mjs` writes every block; tests/js/bench-tables.test.mjs fails
// when a block differs from what its result file gives (a number copied by hand, or a result file
// re-run without writing the docs).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DOC = 'docs/benchmarks.md';
const result = (name) => JSON.parse(readFileSync(join(ROOT, 'bench/results', `${name}.json`), 'utf8'));
const x = (v) => `${v.toFixed(2)}×`;
const e1 = (v) => v.toExponential(1);
const load = (r) => `load average ${r.loadavg[0].toFixed(2)} at the start`;

/** Every generated block: marker → () => its Markdown (from the result file). */
export const BLOCKS = {
  // node --experimental-wasm-relaxed-simd bench/kernel-ab.mjs --relaxed > bench/results/relaxed-node.json
  'RELAXED-NODE': () => {
    const r = result('relaxed-node');
    return `Measured ${r.date.slice(0, 10)}, node ${r.node}, ${r.cpu}, ${load(r)}; CPU-time medians of ${r.batches} interleaved batches:\n\n`
      + '| case | SIMD ms | relaxed ms | relaxed / SIMD | max \\|diff\\| |\n|---|--:|--:|--:|--:|\n'
      + r.results.map((c) => `| ${c.case} | ${c.before_ms} | ${c.after_ms} | ${c.after_over_before} | ${e1(c.max_abs_diff)} |`).join('\n') + '\n';
  },
  // node bench/attention-chromium.mjs
  'ATTENTION-CHROMIUM': () => {
    const r = result('attention-chromium');
    return `Measured ${r.date} in ${r.browser} (TF.js ${r.tfjs.version}, ${r.tfjs.backend}, SIMD ${r.tfjs.simd}, threads ${r.tfjs.threads}; `
      + `attnscope's default module there: ${r.attnscope}), ${r.cpu}, ${r.cores} cores, ${load(r)}; medians of ${r.batches} interleaved batches:\n\n`
      + '| n × d | relaxed ms | SIMD ms | TF.js ms | TF.js / relaxed | TF.js / SIMD | SIMD / relaxed | max \\|diff\\| vs TF.js |\n|---|--:|--:|--:|--:|--:|--:|--:|\n'
      + r.results.map((c) => {
        const [fast, plain, tf] = Object.values(c.ms);
        return `| ${c.n} × ${c.d} | ${fast} | ${plain} | ${tf} | **${x(c.tfjs_over_attnscope)}** | ${x(c.tfjs_over_attnscope_simd)} | ${x(c.relaxed_speedup)} | ${e1(c.max_abs_diff_vs_tfjs)} |`;
      }).join('\n') + '\n';
  },
  // node bench/use-lite-chromium.mjs
  'USE-LITE-CHROMIUM': () => {
    const r = result('use-lite-chromium');
    return `Measured ${r.date} in ${r.browser}, ${r.cpu}, ${r.cores} cores, ${load(r)}; medians of ${r.runs} interleaved batches:\n\n`
      + '| tokens | attnscope relaxed ms | attnscope SIMD ms | TF.js graph ms | TF.js / relaxed | TF.js / SIMD | embedding max \\|diff\\| |\n|--:|--:|--:|--:|--:|--:|--:|\n'
      + r.results.map((c) => {
        const [fast, plain, tf] = Object.values(c.ms);
        return `| ${c.tokens} | ${fast} | ${plain} | ${tf} | **${x(c.tfjs_over_attnscope)}** | ${x(c.tfjs_over_attnscope_simd)} | ${e1(c.embedding_max_abs_diff)} |`;
      }).join('\n') + '\n';
  },
  // node bench/train-node.mjs > bench/results/train-node.json
  'TRAIN-NODE': () => {
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
  },
  // node bench/transformer-page.mjs > bench/results/transformer-page.json
  'TRANSFORMER-PAGE': () => {
    const r = result('transformer-page');
    const row = (e) => e.task === 'characters'
      ? `| ${e.task} | ${e.seed} | no target: trained ${e.seconds.toFixed(0)} s | ${e.steps.toLocaleString('en')} | ${e.reading.replace(/\|/g, '\\|')} Sample: “${e.sample.slice(0, 120)}…” |`
      : `| ${e.task} | ${e.seed} | ${e.reached ? `**met at step ${e.reachedAtStep.toLocaleString('en')}, ${e.seconds.toFixed(1)} s**` : `not met in ${e.seconds.toFixed(0)} s`} | ${e.steps.toLocaleString('en')} | ${e.reading.replace(/\|/g, '\\|')} |`;
    return `Measured ${r.date.slice(0, 10)} in Chromium ${r.chromium}, ${r.cpu}, ${r.cores} cores, ${load(r)}; the page's default settings, wall time from *Train*:\n\n`
      + '| task | seed | target | steps trained | what the page said |\n|---|--:|---|--:|---|\n'
      + r.results.map(row).join('\n') + '\n';
  },
};

const markers = (name) => [`<!-- ${name}:START -->\n`, `<!-- ${name}:END -->`];

/** The text of block `name` in `text`, or null when the markers are missing. */
export function blockIn(text, name) {
  const [start, end] = markers(name);
  const i = text.indexOf(start), j = text.indexOf(end);
  return i < 0 || j < i ? null : text.slice(i + start.length, j);
}

/** Writes every block of BLOCKS into docs/benchmarks.md. */
export function writeTables() {
  const path = join(ROOT, DOC);
  let text = readFileSync(path, 'utf8');
  for (const [name, make] of Object.entries(BLOCKS)) {
    if (blockIn(text, name) === null) throw new Error(`${DOC} lacks the markers of ${name}`);
    const [start, end] = markers(name);
    text = text.slice(0, text.indexOf(start) + start.length) + make() + text.slice(text.indexOf(end));
  }
  writeFileSync(path, text);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeTables();
  console.log(`${DOC}: ${Object.keys(BLOCKS).join(', ')} written from bench/results/`);
}
