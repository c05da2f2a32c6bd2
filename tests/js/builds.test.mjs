// The other ways to create a scope: the scalar-only wasm (for engines without wasm SIMD), the
// single-file build (wasm and the 10,000-word vocabulary inlined), and the vocabulary options.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';
import { DIST, ROOT, assertClose, assertSameBytes, loadScope, loadSingleScope, rng } from './helpers.mjs';
import { PAGES } from '../../scripts/pages.mjs';
import { SCORE_NAMES, parseVocabulary, propagateScoreError, refMatmul, refScores, refSoftmax } from './reference.mjs';

const S1 = "The animal didn't cross the street because it was too tired.";
const S2 = 'The cat sat on the mat.';
const simdScope = await loadScope();

describe('scalar-only build (createAttnScope({ simd: false }))', async () => {
  const scope = await loadScope({ simd: false });

  test('attnscope-scalar.wasm has not one SIMD instruction (it must validate on engines without SIMD); attnscope.wasm has f32x4 arithmetic', () => {
    const disassemble = (file) => execFileSync('wasm-objdump', ['-d', join(DIST, file)], { encoding: 'utf8', maxBuffer: 256 << 20 });
    const simdOps = /\bv128\.|\b[if](8|16|32|64)x\d+\./;
    const scalarLines = disassemble('attnscope-scalar.wasm').split('\n').filter((l) => simdOps.test(l));
    assert.deepEqual(scalarLines.slice(0, 5), [], 'SIMD opcodes in the scalar build');
    const f32x4 = disassemble('attnscope.wasm').split('\n').filter((l) => /\bf32x4\.(add|mul|sub|div|max|min)\b/.test(l)).length;
    assert.ok(f32x4 > 100, `attnscope.wasm has ${f32x4} f32x4 arithmetic instructions`);
  });

  test('reports itself as scalar and refuses the simd variant', () => {
    assert.deepEqual(scope.variants.available, ['auto', 'scalar']);
    assert.equal(scope.variants.simd, false);
    assert.equal(scope.variants.isa, 'scalar');
    assert.throws(() => { scope.variant = 'simd'; }, (e) => e instanceof TypeError && /variant/.test(e.message));
    assert.throws(() => scope.scores(new Float32Array(1), new Float32Array(1), { nq: 1, nk: 1, d: 1, variant: 'simd' }), TypeError);
  });

  test('attention() against the float64 reference, every score', () => {
    for (const name of SCORE_NAMES) {
      const r = rng(SCORE_NAMES.indexOf(name));
      const nq = 6, nk = 11, d = 37, dv = 5, dk = ['general', 'additive', 'location'].includes(name) ? 40 : d;
      const Q = r.floats(nq * d), K = r.floats(nk * dk), V = r.floats(nk * dv);
      const w = { general: { W: r.floats(d * dk, 0.2) }, additive: { W1: r.floats(7 * d, 0.2), W2: r.floats(7 * dk, 0.2), v: r.floats(7) },
        location: { Wa: r.floats(nk * d, 0.2) } }[name] ?? {};
      const opts = { nq, nk, d, dk, dv, score: name, temperature: 0.7, mask: 'causal', ...w };
      const res = scope.attention(Q, K, V, opts);
      assert.equal(res.variant, 'scalar');
      const S = refScores(name, Q, K, opts);
      assertClose(res.scores, S.S, S.tol, `${name} scores`);
      const A = refSoftmax(S.S, nq, nk, { temperature: 0.7, mask: 'causal' });
      assertClose(res.weights, A.A, propagateScoreError(A.A, S.tol, nq, nk, 0.7, A.tol), `${name} weights`);
      const O = refMatmul(res.weights, V, nq, nk, dv);
      assertClose(res.output, O.O, O.tol, `${name} output`);
    }
  });

  test('attend() agrees with the SIMD build within the float32 bounds; tokens and embeddings identical', () => {
    for (const score of SCORE_NAMES) {
      const o = { query: S1, keys: S2, score, heads: 2, projection: 'random', seed: 11 };
      const a = scope.attend(o), b = simdScope.attend(o);
      assert.deepEqual(a.queryTokenInfo, b.queryTokenInfo);
      assertSameBytes(a.queryEmbeddings, b.queryEmbeddings, 'embeddings');
      // Same seeded matrices (integer PRNG); the products differ by rounding only. q and k agree to
      // (d+1)u relative to Σ|x||w| ≤ ~1e-5 here, and the weights then to well under 1e-4.
      for (let h = 0; h < 2; h++) assertClose(a.q[h], b.q[h], 1e-5, `${score} q[${h}]`);
      assertClose(a.weights, b.weights, 1e-4, `${score} weights`);
      assert.equal(a.variant, 'scalar');
    }
  });
});

describe('single-file build', async () => {
  const single = await loadSingleScope();

  test('the 10,000-word vocabulary and the SIMD wasm are inlined', () => {
    assert.deepEqual(single.vocabulary, { size: 10000, dim: 100, name: 'glove-10k.bin' });
    assert.equal(single.variants.simd, true);
    assert.deepEqual(single.scoreFunctions, simdScope.scoreFunctions);
  });

  test('same numbers as the split build with the small vocabulary', async () => {
    const small = await loadScope({ vocabulary: 'small' });
    for (const score of SCORE_NAMES) {
      const o = { query: S1, keys: S2, score, heads: 4, positional: true };
      const a = single.attend(o), b = small.attend(o);
      for (const key of ['scores', 'weights', 'output']) assertSameBytes(a[key], b[key], `${score} ${key}`);
    }
  });

  test('refuses the scalar build it does not contain', async () => {
    await assert.rejects(loadSingleScope({ simd: false }), /split build/);
  });
});

describe('vocabulary options', () => {
  test("'small' is glove-10k.bin: its words' vectors, and OOV for the others", async () => {
    const scope = await loadScope({ vocabulary: 'small' });
    assert.deepEqual(scope.vocabulary, { size: 10000, dim: 100, name: 'glove-10k.bin' });
    const file = parseVocabulary(readFileSync(join(DIST, 'glove-10k.bin')));
    assertSameBytes(scope.embed('king').vector, file.vector(file.index.get('king')), 'king');
    const rare = parseVocabulary(readFileSync(join(DIST, 'glove-50k.bin'))).words[40000];
    assert.equal(scope.embed(rare).oov, true, `${rare} is not among the 10,000 words`);
    assert.equal(simdScope.embed(rare).oov, false, `${rare} is among the 50,000 words`);
  });

  test('bytes, a URL and a URL string; onProgress reports the bytes', async () => {
    const path = join(DIST, 'glove-10k.bin');
    const bytes = readFileSync(path);
    const a = await loadScope({ vocabulary: new Uint8Array(bytes) });
    assert.deepEqual(a.vocabulary, { size: 10000, dim: 100, name: 'custom' });
    const b = await loadScope({ vocabulary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) });
    assert.equal(b.vocabulary.size, 10000);
    const progress = [];
    const c = await loadScope({ vocabulary: pathToFileURL(path), onProgress: (loaded, total) => progress.push([loaded, total]) });
    assert.equal(c.vocabulary.size, 10000);
    assert.deepEqual(progress.at(-1), [bytes.length, bytes.length]);
    const d = await loadScope({ vocabulary: pathToFileURL(path).href });
    assert.equal(d.vocabulary.name, pathToFileURL(path).href);
    for (const s of [a, b, c, d]) assertSameBytes(s.attend({ query: S2 }).weights, a.attend({ query: S2 }).weights, 'same vocabulary, same weights');
  });

  test('onProgress for the default vocabulary ends at its size', async () => {
    const progress = [];
    await loadScope({ onProgress: (loaded, total) => progress.push([loaded, total]) });
    const size = readFileSync(join(DIST, 'glove-50k.bin')).length;
    assert.deepEqual(progress.at(-1), [size, size]);
  });
});

describe('when the vocabulary downloads (createAttnScope() loads only the wasm)', () => {
  const distUrl = (file) => pathToFileURL(join(DIST, file)).href;

  test('scores(), softmax() and attention() never ask for it; attend, embed, nearest and tokenize say how to load it', async () => {
    const asked = [];
    const scope = await loadScope({ preload: false, locateFile: (file) => { asked.push(file); return distUrl(file); } });
    const Q = new Float32Array([1, 0, 0, 1]), K = new Float32Array([1, 0, 0, 1, 1, 1]), V = new Float32Array([1, 2, 3]);
    assert.deepEqual(Array.from(scope.scores(Q, K, { nq: 2, nk: 3, d: 2, score: 'dot' })), [1, 0, 1, 0, 1, 1]);
    scope.softmax(new Float32Array([1, 2]), { rows: 1, cols: 2 });
    scope.attention(Q, K, V, { nq: 2, nk: 3, d: 2, dv: 1 });
    assert.deepEqual(asked, ['attnscope.wasm']);
    assert.deepEqual(scope.vocabulary, { size: 0, dim: 0, name: 'glove-50k.bin' });
    const calls = { attend: () => scope.attend({ query: S2 }), embed: () => scope.embed('cat'), nearest: () => scope.nearest('cat'),
      tokenize: () => scope.tokenize(S2) };
    for (const [name, call] of Object.entries(calls)) {
      assert.throws(call, (e) => e instanceof Error && e.message.startsWith(`${name}: the vocabulary (glove-50k.bin) is not loaded yet; `) &&
        e.message.includes('await scope.loadVocabulary()') && e.message.includes('createAttnScope({ preload: true })'), name);
    }
    assert.deepEqual(asked, ['attnscope.wasm'], 'a refused call does not start a download');
  });

  test('loadVocabulary() loads it once (concurrent calls share one download); then every call works, with preload\'s numbers', async () => {
    const asked = [], progress = [];
    const scope = await loadScope({ preload: false, locateFile: (file) => { asked.push(file); return distUrl(file); },
      onProgress: (loaded, total) => progress.push([loaded, total]) });
    const [a, b] = await Promise.all([scope.loadVocabulary(), scope.loadVocabulary()]);
    assert.deepEqual(a, { size: 50000, dim: 100, name: 'glove-50k.bin' });
    assert.deepEqual(b, a);
    assert.deepEqual(await scope.loadVocabulary(), a, 'later calls resolve at once');
    assert.deepEqual(asked, ['attnscope.wasm', 'glove-50k.bin']);
    const size = readFileSync(join(DIST, 'glove-50k.bin')).length;
    assert.deepEqual(progress.at(-1), [size, size]);
    assertSameBytes(scope.attend({ query: S1, keys: S2 }).weights, simdScope.attend({ query: S1, keys: S2 }).weights, 'same weights as preload');
    assert.equal(scope.embed('cat').oov, false);
  });

  test('a failed download rejects with the URL and the fix, and can be retried', async () => {
    let attempt = 0;
    const scope = await loadScope({ preload: false,
      locateFile: (file) => (file.endsWith('.bin') && attempt++ === 0 ? 'file:///nonexistent/glove-50k.bin' : distUrl(file)) });
    await assert.rejects(scope.loadVocabulary(), (e) => /could not read glove-50k\.bin from file:\/\/\/nonexistent\/glove-50k\.bin \(ENOENT\)/.test(e.message) &&
      /locateFile/.test(e.message));
    assert.equal((await scope.loadVocabulary()).size, 50000);
  });

  test('preload: true rejects when the vocabulary is missing; a wrong file is named as such before the core sees it', async () => {
    await assert.rejects(loadScope({ preload: true, vocabulary: 'file:///nonexistent/words.bin' }), /could not read your vocabulary file from file:\/\/\/nonexistent\/words\.bin/);
    await assert.rejects(loadScope({ preload: true, vocabulary: distUrl('attnscope.wasm') }),
      (e) => e.message.includes(`${distUrl('attnscope.wasm')} should be your vocabulary file, an attnscope vocabulary (starting "ATSVOCAB")`) && /check the URL given as options\.vocabulary/.test(e.message) && /but it is a file of \d+ bytes/.test(e.message));
    await assert.rejects(loadScope({ locateFile: (file) => distUrl(file === 'attnscope.wasm' ? 'glove-10k.bin' : file) }),
      (e) => e.message.includes(`${distUrl('glove-10k.bin')} should be attnscope.wasm, a WebAssembly module (starting 00 61 73 6d), but it is a file of`) && /locateFile/.test(e.message));
    await assert.rejects(loadScope({ wasmBinary: new Uint8Array([60, 33, 100, 111]) }), (e) => e instanceof TypeError && /options\.wasmBinary: expected a WebAssembly module/.test(e.message));
    await assert.rejects(loadScope({ locateFile: 'dist/' }), (e) => e instanceof TypeError && /options\.locateFile: expected a function/.test(e.message));
  });

  test('bytes at hand load at creation: your own bytes, and the single-file build\'s inlined words', async () => {
    const own = await loadScope({ preload: false, vocabulary: readFileSync(join(DIST, 'glove-10k.bin')) });
    assert.deepEqual(own.vocabulary, { size: 10000, dim: 100, name: 'custom' });
    const single = await loadSingleScope();
    assert.deepEqual(single.vocabulary, { size: 10000, dim: 100, name: 'glove-10k.bin' });
    assert.equal(single.attend({ query: S2 }).nq, 7);
    await assert.rejects(loadSingleScope({ vocabulary: 'default' }), (e) => e instanceof TypeError && /only the 10,000-word vocabulary/.test(e.message) && /locateFile/.test(e.message));
    const located = await loadSingleScope({ vocabulary: 'default', preload: true, locateFile: distUrl });
    assert.deepEqual(located.vocabulary, { size: 50000, dim: 100, name: 'glove-50k.bin' });
  });
});

describe('the demo site\'s pages (dist/web)', () => {
  test('every page\'s <head> starts with web/shared/head.html: one Content-Security-Policy for all, every placeholder filled', () => {
    const shared = readFileSync(join(ROOT, 'web/shared/head.html'), 'utf8').trimEnd();
    assert.match(shared, /http-equiv="Content-Security-Policy"/);
    const pages = readdirSync(join(DIST, 'web')).filter((f) => f.endsWith('.html'));
    assert.deepEqual(pages.sort(), PAGES.map((p) => p.html).sort(), 'the pages of scripts/pages.mjs, no other');
    for (const f of pages) {
      const html = readFileSync(join(DIST, 'web', f), 'utf8');
      assert.ok(html.startsWith(`<!doctype html>\n<html lang="en">\n<head>\n${shared}\n`), `${f} starts with the shared head`);
      assert.equal(html.match(/Content-Security-Policy/g).length, 1, `${f}: one policy`);
      assert.doesNotMatch(html, /\{\{/, `${f}: every placeholder is filled`);
    }
  });
});
