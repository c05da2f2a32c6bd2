// The workload the pool benchmarks share (bench/pool.mjs: wall clock, bench/pool-cpu.mjs: CPU time),
// so that their figures measure the same calls: attentionOutput at n = 4,096 (d = dv = 64,
// scaled-dot) on seeded Q, K, V, and a 1,000-word attend() with 8 heads; and the small helpers of
// their runs (the command line's values, the load average, the median).
import { loadavg } from 'node:os';

/** The value after `name` on the command line ('--rounds'), or `fallback`. */
export const argValue = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
/** The machine's load averages (1, 5, 15 minutes) now, to two decimals: the machine is shared. */
export const loadNow = () => loadavg().map((x) => Math.round(x * 100) / 100);
/** The median (of an even count, the mean of the middle two). */
export const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

/** n seeded floats in [-1, 1) (a linear congruential generator: the same numbers on every machine). */
export function rand(n, seed) {
  const a = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; a[i] = s / 2 ** 31 - 1; }
  return a;
}

// 1,000 words of running text from the vocabulary's common words (no punctuation: 1,000 tokens).
const WORDS = ('the of and to in a is that for it as was with be by on not he this are or his from at which but have an they ' +
  'you were her she there one all we their has been would when who will more no if out so said what up its about into than ' +
  'them can only other new some could time these two may then do first any my now such like our over man me even most made ' +
  'after also did many before must through back years where much your way well down should because each just those people').split(' ');
export const text = Array.from({ length: 1000 }, (_, i) => WORDS[(i * 7919 + (i >> 3)) % WORDS.length]).join(' ');

export const n = 4096, d = 64;
export const Q = rand(n * d, 1), K = rand(n * d, 2), V = rand(n * d, 3);
export const outputOptions = { nq: n, nk: n, d, dv: d, score: 'scaled-dot' };
export const attendOptions = { query: text, heads: 8, maxTokens: 1100 };
