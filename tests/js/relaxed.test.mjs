// The relaxed-SIMD build (attnscope-relaxed.wasm: the SIMD build with its products' multiply-adds as
// f32x4.relaxed_madd, chosen by the loader where the engine has relaxed SIMD). Node 20 has relaxed SIMD
// only behind --experimental-wasm-relaxed-simd: without it the loader must pick the SIMD build, and
// asking for 'relaxed' is a clear error; with it (a child process) the default is the relaxed build,
// and its numbers equal the SIMD build's within float32 rounding for every scoring function and call,
// the model included, while differing somewhere (the multiply-adds are really fused) on a machine
// with a fused multiply-add.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { DIST, loadScope } from './helpers.mjs';

const entry = pathToFileURL(join(DIST, 'attnscope.mjs')).href;

test('attnscope-relaxed.wasm: its products are f32x4.relaxed_madd (final opcode), no prototype opcode is left, and attnscope.wasm has none', async () => {
  const { rewriteRelaxed } = await import(pathToFileURL(join(DIST, '..', 'scripts/wasm-relaxed.mjs')).href);
  const relaxed = rewriteRelaxed(new Uint8Array(readFileSync(join(DIST, 'attnscope-relaxed.wasm'))));
  assert.equal(relaxed.rewritten, 0, 'prototype f32x4.fma left in the shipped module');
  assert.ok(relaxed.madd >= 100, `${relaxed.madd} relaxed_madd`);
  const plain = rewriteRelaxed(new Uint8Array(readFileSync(join(DIST, 'attnscope.wasm'))));
  assert.deepEqual([plain.rewritten, plain.madd], [0, 0]);
});

test('without relaxed SIMD (node 20 by default): the SIMD build, and simd: \'relaxed\' says what is missing', async () => {
  const { engineHasRelaxedSimd } = await import(entry);
  assert.equal(engineHasRelaxedSimd(), false);
  const scope = await loadScope({ preload: false });
  assert.equal(scope.variants.build, 'simd');
  assert.equal(scope.variants.relaxed, false);
  scope.dispose();
  const { createAttnScope } = await import(entry);
  await assert.rejects(createAttnScope({ simd: 'relaxed' }), /options\.simd: 'relaxed': this engine has no WebAssembly relaxed SIMD \(node 20 needs --experimental-wasm-relaxed-simd\)/);
  await assert.rejects(createAttnScope({ simd: 'fast' }), { name: 'TypeError', message: /options\.simd: expected true, false or 'relaxed'/ });
});

test('with relaxed SIMD: the relaxed build by default, equal to the SIMD build within float32 rounding, fused where the machine can', () => {
  const script = `
    import { createAttnScope, engineHasRelaxedSimd } from ${JSON.stringify(entry)};
    const relaxed = await createAttnScope({ preload: true, vocabulary: 'small' });
    const plain = await createAttnScope({ simd: true, preload: true, vocabulary: 'small' });
    let seed = 7;
    const rand = (n) => Float32Array.from({ length: n }, () => { seed = (seed * 1103515245 + 12345) >>> 0; return seed / 2 ** 31 - 1; });
    const out = { has: engineHasRelaxedSimd(), builds: [relaxed.variants.build, plain.variants.build], isa: relaxed.variants.isa, cases: [] };
    const compare = (label, a, b, scale) => {
      let worst = 0, differ = 0;
      for (let i = 0; i < a.length; i++) {
        const d = Math.abs(a[i] - b[i]);
        if (d !== 0 || Object.is(a[i], -0) !== Object.is(b[i], -0)) differ++;
        worst = Math.max(worst, d / scale);
      }
      out.cases.push({ label, worst, differ, n: a.length });
    };
    for (const [nq, nk, d] of [[37, 53, 64], [200, 300, 128]]) {
      const Q = rand(nq * d), K = rand(nk * d), V = rand(nk * d);
      for (const score of relaxed.scoreFunctions.map((s) => s.name)) {
        if (['general', 'additive', 'location'].includes(score)) continue;
        const so = { nq, nk, d, score }, o = { ...so, dv: d };
        compare(score + ' scores ' + nq + 'x' + nk + 'x' + d, relaxed.scores(Q, K, so), plain.scores(Q, K, so), d);
        compare(score + ' output ' + nq + 'x' + nk + 'x' + d, relaxed.attentionOutput(Q, K, V, o), plain.attentionOutput(Q, K, V, o), 1);
        const ra = relaxed.attention(Q, K, V, o), pa = plain.attention(Q, K, V, o);
        compare(score + ' weights ' + nq + 'x' + nk + 'x' + d, ra.weights, pa.weights, 1);
      }
    }
    const t = { query: 'The animal did not cross the street because it was too tired.', heads: 4, projection: 'random', score: 'scaled-dot' };
    compare('attend weights', relaxed.attend(t).weights, plain.attend(t).weights, 1);
    const mr = await relaxed.loadModel(), mp = await plain.loadModel();
    const er = mr.encode(t.query), ep = mp.encode(t.query);
    compare('model attentions', er.attentions, ep.attentions, 1);
    compare('model embedding', er.embedding, ep.embedding, 1);
    console.log(JSON.stringify(out));
  `;
  const text = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 1 << 24 });
  const got = JSON.parse(text.trim().split('\n').pop());
  assert.equal(got.has, true);
  assert.deepEqual(got.builds, ['relaxed-simd', 'simd']);
  assert.match(got.isa, /^wasm relaxed simd /);
  let differing = 0;
  for (const c of got.cases) {
    // Scores of d products: fused and unfused sums differ by at most about d roundings of the terms
    // (|q|, |k| <= 1); weights, outputs and the model's values by a few units of float32's 2^-24.
    const bound = c.label.includes(' scores ') ? 2 ** -20 : c.label.startsWith('model') ? 2 ** -14 : 2 ** -17;
    assert.ok(c.worst <= bound, `${c.label}: differs by ${c.worst} (scaled), more than ${bound}`);
    differing += c.differ;
  }
  const cpu = (() => { try { return readFileSync('/proc/cpuinfo', 'utf8'); } catch { return ''; } })();
  if (/\bfma\b/.test(cpu)) assert.ok(differing > 0, 'not one number differs: the multiply-adds are not fused, though this machine has FMA');
  console.log(`relaxed vs SIMD: ${differing} numbers differ over ${got.cases.length} cases; worst ${Math.max(...got.cases.map((c) => c.worst)).toExponential(2)}`);
});
