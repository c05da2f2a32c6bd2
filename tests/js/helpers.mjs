// Shared by the node:test files in tests/js: where the built package is, a seeded PRNG for test
// inputs, and comparisons that report the worst element. Not a test file itself (no .test. in the name).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { mulberry32 } from '../../web/shared/random.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = join(ROOT, 'dist');

/** The unit roundoff of float32 (half an ulp of 1): every float32 operation errs by at most u relatively. */
export const U = 2 ** -24;

function requireDist(file) {
  const path = join(DIST, file);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first (npm test does)`);
  return pathToFileURL(path).href;
}

/**
 * The split build from the source tree's dist/ (SIMD wasm, or scalar with { simd: false }), with its
 * vocabulary loaded as the README's example does ({ preload: true }) unless the options say otherwise.
 */
export async function loadScope(options) {
  const { createAttnScope } = await import(requireDist('attnscope.mjs'));
  return createAttnScope({ preload: true, ...options });
}

/** The single-file build from the source tree's dist/. */
export async function loadSingleScope(options) {
  const { createAttnScope } = await import(requireDist('attnscope.single.mjs'));
  return createAttnScope(options);
}

/** Deterministic PRNG (mulberry32): the same seed gives the same test inputs on every run. */
export function rng(seed) {
  const next = mulberry32(seed);
  return {
    next,
    /** n float32 values uniform in [-scale, scale). */
    floats(n, scale = 1) {
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = (2 * next() - 1) * scale;
      return out;
    },
    int(lo, hi) { return lo + Math.floor(next() * (hi - lo + 1)); },
  };
}

/**
 * Asserts |got[i] - ref[i]| <= tol[i] for every i (tol: a number or an array), reporting the worst
 * element relative to its tolerance. NaN never passes; equal infinities do.
 */
export function assertClose(got, ref, tol, label) {
  assert.equal(got.length, ref.length, `${label}: length ${got.length}, expected ${ref.length}`);
  let worst = -1, worstRatio = 0;
  for (let i = 0; i < ref.length; i++) {
    const g = got[i], r = ref[i];
    if (g === r) continue;  // also equal infinities
    const t = typeof tol === 'number' ? tol : tol[i];
    const err = Math.abs(g - r);
    const ratio = Number.isNaN(err) ? Infinity : err / t;
    if (!(ratio <= 1) && ratio >= worstRatio) { worstRatio = ratio; worst = i; }
  }
  if (worst >= 0) {
    const t = typeof tol === 'number' ? tol : tol[worst];
    assert.fail(`${label}: element ${worst} is ${got[worst]}, expected ${ref[worst]} ± ${t} ` +
      `(error ${Math.abs(got[worst] - ref[worst])}, ${worstRatio.toFixed(1)}× the tolerance)`);
  }
}

/** Byte-for-byte equality of two typed arrays (bit patterns, so -0 ≠ 0 and NaN == NaN). */
export function assertSameBytes(a, b, label) {
  assert.equal(a.constructor, b.constructor, `${label}: different array types`);
  assert.equal(a.length, b.length, `${label}: length ${a.length} vs ${b.length}`);
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength), y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < x.length; i++) {
    if (x[i] !== y[i]) assert.fail(`${label}: first difference at element ${Math.floor(i / a.BYTES_PER_ELEMENT)}: ${a[Math.floor(i / a.BYTES_PER_ELEMENT)]} vs ${b[Math.floor(i / b.BYTES_PER_ELEMENT)]}`);
  }
}

/** Asserts that fn throws an error of class `type` whose message matches every pattern. */
export function assertThrowsNaming(fn, type, patterns, label) {
  let error;
  try { fn(); } catch (e) { error = e; }
  assert.ok(error, `${label}: expected a ${type.name}, nothing was thrown`);
  assert.ok(error instanceof type, `${label}: expected a ${type.name}, got ${error && error.constructor.name}: ${error && error.message}`);
  for (const p of [].concat(patterns)) {
    assert.match(error.message, p, `${label}: message ${JSON.stringify(error.message)} should match ${p}`);
  }
  return error;
}

/** Runs `npx tsc --noEmit -p <project>`; resolves to { code, output } whatever the exit code. */
export async function tsc(project, cwd = ROOT) {
  try {
    const { stdout, stderr } = await promisify(execFile)('npx', ['--no-install', 'tsc', '--noEmit', '--pretty', 'false', '-p', project], { cwd });
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    if (typeof e.code !== 'number') throw e;
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

/** Small random matrices for the scores that need them (general, additive with 7 hidden units, location); {} for the others. */
export function weightsFor(name, r, d, dk, nk) {
  return {
    general: { W: r.floats(d * dk, 0.2) },
    additive: { W1: r.floats(7 * d, 0.2), W2: r.floats(7 * dk, 0.2), v: r.floats(7) },
    location: { Wa: r.floats(nk * d, 0.2) },
  }[name] ?? {};
}
