// createAttnPool() in Chromium, from a module worker (the pool's own workers are then nested module
// workers): one page served over http from a folder holding the package's dist/ files and the page.
// The worker's pool computes attentionOutput, scores and attend; the numbers equal node's scope
// bit for bit (the same wasm); an aborted call rejects with an AbortError and the pool answers after.
// One browser for the file, launched as the other e2e files do (scripts/browser-harness.mjs's flags and server).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, outDir, relaxedSimdLikeChromium, root, startServer } from '../../scripts/browser-harness.mjs';

const site = join(outDir, 'pool-site');
let browser, server, scope;
const errors = [];

const PAGE = `<!doctype html><meta charset="utf-8"><title>pool</title><link rel="icon" href="data:,">
<script type="module">
  const worker = new Worker(new URL('./job.mjs', import.meta.url), { type: 'module' });
  window.result = new Promise((resolve) => {
    worker.onmessage = (e) => resolve(e.data);
    worker.onerror = (e) => resolve({ error: 'worker error: ' + (e.message || 'failed to load') });
  });
</script>`;

// Runs in a module worker of the page.
const JOB = `
import { createAttnPool } from './pool.mjs';
const rand = (n, seed) => { const a = new Float32Array(n); let s = seed >>> 0; for (let i = 0; i < n; i++) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; a[i] = s / 2 ** 31 - 1; } return a; };
try {
  const pool = await createAttnPool({ workers: 2, preload: true });
  const nq = 700, nk = 300, d = 32, dv = 16;
  const Q = rand(nq * d, 1), K = rand(nk * d, 2), V = rand(nk * dv, 3);
  const output = await pool.attentionOutput(Q, K, V, { nq, nk, d, dv, score: 'idw' });
  const scores = await pool.scores(Q, K, { nq, nk, d, score: 'neg-manhattan' });
  const attend = await pool.attend({ query: 'the quick brown fox jumps over the lazy dog', heads: 4 });
  const controller = new AbortController();
  const big = rand(2048 * 64, 4);
  const aborted = pool.attentionOutput(big, big, big, { nq: 2048, nk: 2048, d: 64, dv: 64, signal: controller.signal });
  controller.abort();  // while both workers hold a share of it
  let abortName = null;
  try { await aborted; } catch (e) { abortName = e.name; }
  const after = await pool.attentionOutput(Q, K, V, { nq, nk, d, dv, score: 'idw' });
  const workers = pool.workers;
  await pool.dispose();
  let afterDispose = null;
  try { await pool.scores(Q, K, { nq, nk, d }); } catch (e) { afterDispose = e.message; }
  postMessage({ output, scores, attendWeights: attend.weights, attendOutput: attend.output, abortName, after, workers, afterDispose,
    hardwareConcurrency: navigator.hardwareConcurrency });
} catch (e) {
  postMessage({ error: String(e && e.stack || e) });
}
`;

before(async () => {
  rmSync(site, { recursive: true, force: true });
  mkdirSync(site, { recursive: true });
  for (const f of readdirSync(join(root, 'dist'))) if (/\.(mjs|wasm|bin)$/.test(f)) copyFileSync(join(root, 'dist', f), join(site, f));
  writeFileSync(join(site, 'index.html'), PAGE);
  writeFileSync(join(site, 'job.mjs'), JOB);
  relaxedSimdLikeChromium();   // the page's numbers (relaxed SIMD in Chromium) against node's
  const { createAttnScope } = await import(pathToFileURL(join(root, 'dist/attnscope.mjs')).href);
  scope = await createAttnScope({ preload: true });
  server = await startServer(site);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

function sameBits(a, b, what) {
  assert.equal(a.length, b.length, `${what}: length`);
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length), y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) assert.fail(`${what}: element ${i}: ${a[i]} in the browser, ${b[i]} in node`);
}

test('a pool created in a module worker computes the scope\'s numbers, aborts, and disposes', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('response', (res) => { if (res.status() >= 400) errors.push(`${res.status()} ${res.url()}`); });
  await page.goto(server.url);
  const r = await page.evaluate(async () => {
    const res = await window.result;
    if (res.error) return res;
    const list = (a) => Array.from(a);
    return { ...res, output: list(res.output), scores: list(res.scores), attendWeights: list(res.attendWeights),
      attendOutput: list(res.attendOutput), after: list(res.after) };
  });
  assert.equal(r.error, undefined, r.error);
  const nq = 700, nk = 300, d = 32, dv = 16;
  const rand = (n, seed) => { const a = new Float32Array(n); let s = seed >>> 0; for (let i = 0; i < n; i++) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; a[i] = s / 2 ** 31 - 1; } return a; };
  const Q = rand(nq * d, 1), K = rand(nk * d, 2), V = rand(nk * dv, 3);
  const f32 = (a) => Float32Array.from(a);
  sameBits(f32(r.output), scope.attentionOutput(Q, K, V, { nq, nk, d, dv, score: 'idw' }), 'attentionOutput');
  sameBits(f32(r.after), scope.attentionOutput(Q, K, V, { nq, nk, d, dv, score: 'idw' }), 'attentionOutput after the abort');
  sameBits(f32(r.scores), scope.scores(Q, K, { nq, nk, d, score: 'neg-manhattan' }), 'scores');
  const a = scope.attend({ query: 'the quick brown fox jumps over the lazy dog', heads: 4 });
  sameBits(f32(r.attendWeights), a.weights, 'attend weights');
  sameBits(f32(r.attendOutput), a.output, 'attend output');
  assert.equal(r.abortName, 'AbortError');
  assert.equal(r.workers, 2);
  assert.match(r.afterDispose, /disposed/);
  assert.deepEqual(errors, []);
  await context.close();
});
