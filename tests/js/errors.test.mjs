// Bad input throws a TypeError (wrong kind of value) or RangeError (right kind, bad value) whose
// message names the argument; the instance keeps working afterwards, gives the same numbers as
// before, and the failed call leaked no wasm memory.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { assertClose, assertSameBytes, assertThrowsNaming, loadScope, rng } from './helpers.mjs';
import { refScores } from './reference.mjs';

const scope = await loadScope();
const S1 = "The animal didn't cross the street because it was too tired.";
const S2 = 'The cat sat on the mat.';

const r = rng(1);
const nq = 3, nk = 4, d = 5, dv = 2;
const Q = r.floats(nq * d), K = r.floats(nk * d), V = r.floats(nk * dv), S = r.floats(nq * nk);
const base = { nq, nk, d };

// Reference results taken before any error; every error case is followed by the same calls, which
// must give the same bytes (and the scores the float64 reference).
const warm = () => {
  scope.scores(Q, K, { ...base, score: 'cosine' });
  scope.softmax(S, { rows: nq, cols: nk, mask: 'causal' });
  scope.attention(Q, K, V, { ...base, dv });
  scope.attend({ query: S1, keys: S2, heads: 2, projection: 'random' });
  scope.tokenize(S1); scope.embed('king'); scope.nearest('king', 3);
};
warm(); warm();
const expected = {
  scores: scope.scores(Q, K, { ...base, score: 'cosine' }),
  softmax: scope.softmax(S, { rows: nq, cols: nk, mask: 'causal' }),
  attention: scope.attention(Q, K, V, { ...base, dv }).output,
  attend: scope.attend({ query: S1, keys: S2, heads: 2, projection: 'random' }).weights,
};
const memoryAtStart = scope.memoryInUse();

function stillWorks(label) {
  const s = scope.scores(Q, K, { ...base, score: 'cosine' });
  assertSameBytes(s, expected.scores, `${label}: scores afterwards`);
  const ref = refScores('cosine', Q, K, base);
  assertClose(s, ref.S, ref.tol, `${label}: scores afterwards vs reference`);
  assertSameBytes(scope.softmax(S, { rows: nq, cols: nk, mask: 'causal' }), expected.softmax, `${label}: softmax afterwards`);
  assertSameBytes(scope.attention(Q, K, V, { ...base, dv }).output, expected.attention, `${label}: attention afterwards`);
  assertSameBytes(scope.attend({ query: S1, keys: S2, heads: 2, projection: 'random' }).weights, expected.attend, `${label}: attend afterwards`);
  assert.equal(scope.memoryInUse(), memoryAtStart, `${label}: wasm memory in use after the failed call`);
}

/** cases: [label, () => call, ErrorClass, patterns the message must match (the argument's name first)] */
function run(group, cases) {
  describe(group, () => {
    for (const [label, fn, type, patterns] of cases) {
      test(label, () => {
        assertThrowsNaming(fn, type, patterns, label);
        stillWorks(label);
      });
    }
  });
}

const withNaN = (a, i, x = NaN) => { const b = a.slice(); b[i] = x; return b; };
/** A flat row-major matrix as nested arrays of numbers, the way one often arrives from JSON. */
const rowsOf = (flat, cols) => Array.from({ length: flat.length / cols }, (_, i) => Array.from(flat.subarray(i * cols, (i + 1) * cols)));

test('the nested-array hints, followed as written, give the flat Float32Array\'s scores', () => {
  const want = scope.scores(Q, K, base);
  const asRows = rowsOf(Q, base.d);
  const kRows = Array.from({ length: base.nk }, (_, i) => K.slice(i * base.d, (i + 1) * base.d));
  assert.deepEqual(scope.scores(new Float32Array(asRows.flat()), K, base), want);
  assert.deepEqual(scope.scores(new Float32Array([asRows].flat(Infinity)), K, base), want);
  assert.deepEqual(scope.scores(Q, Float32Array.from(kRows.flatMap((row) => Array.from(row))), base), want);
});

run('scores()', [
  ['Q of the wrong length', () => scope.scores(Q.subarray(1), K, base), RangeError, [/\bQ\b/, /15/, /14/]],
  ['K of the wrong length', () => scope.scores(Q, K.subarray(1), base), RangeError, [/\bK\b/, /20/]],
  ['NaN in K', () => scope.scores(Q, withNaN(K, 7), base), RangeError, [/\bK\b/, /element 7/, /NaN/]],
  ['Infinity in Q', () => scope.scores(withNaN(Q, 0, Infinity), K, base), RangeError, [/\bQ\b/, /element 0/, /finite/]],
  ['Array instead of Float32Array', () => scope.scores(Array.from(Q), K, base), TypeError, [/\bQ\b/, /Float32Array/, /wrap it: new Float32Array\(Q\)$/]],
  // A matrix as nested arrays: new Float32Array(Q) would give NaNs of the wrong length; the hint is .flat().
  ['nested arrays (rows)', () => scope.scores(rowsOf(Q, base.d), K, base), TypeError, [/^Q: /, /array of arrays/, /new Float32Array\(Q\.flat\(\)\)$/]],
  ['nested arrays, three levels', () => scope.scores([rowsOf(Q, base.d)], K, base), TypeError, [/^Q: /, /new Float32Array\(Q\.flat\(Infinity\)\)$/]],
  ['typed-array rows', () => scope.scores(Q, Array.from({ length: base.nk }, (_, i) => K.slice(i * base.d, (i + 1) * base.d)), base), TypeError,
    [/^K: /, /typed-array rows/, /Float32Array\.from\(K\.flatMap\(\(row\) => Array\.from\(row\)\)\)$/]],
  ['Float64Array instead of Float32Array', () => scope.scores(Q, Float64Array.from(K), base), TypeError, [/\bK\b/, /Float32Array/]],
  ['unknown scoring name', () => scope.scores(Q, K, { ...base, score: 'dott' }), TypeError, [/score/, /'dott'/, /'scaled-dot'/]],
  ['p = 0 for idw', () => scope.scores(Q, K, { ...base, score: 'idw', p: 0 }), RangeError, [/\bp\b/, /> 0/]],
  ['p < 0 for idw', () => scope.scores(Q, K, { ...base, score: 'idw', p: -2 }), RangeError, [/\bp\b/]],
  ['p NaN', () => scope.scores(Q, K, { ...base, score: 'idw', p: NaN }), TypeError, [/\bp\b/, /finite/]],
  ['eps < 0', () => scope.scores(Q, K, { ...base, score: 'idw', eps: -1e-3 }), RangeError, [/\beps\b/, />= 0/]],
  ['general without W', () => scope.scores(Q, K, { ...base, score: 'general' }), TypeError, [/\bW\b/, /general/]],
  ['general with W of the wrong size', () => scope.scores(Q, K, { ...base, score: 'general', W: new Float32Array(24) }), RangeError, [/\bW\b/, /25/]],
  ['additive without v', () => scope.scores(Q, K, { ...base, score: 'additive', W1: new Float32Array(10), W2: new Float32Array(10) }), TypeError, [/W1, W2, v/, /additive/]],
  ['additive with W2 of the wrong size', () => scope.scores(Q, K, { ...base, score: 'additive', W1: new Float32Array(10), W2: new Float32Array(9), v: new Float32Array(2) }), RangeError, [/\bW2\b/]],
  ['location without Wa', () => scope.scores(Q, K, { ...base, score: 'location' }), TypeError, [/\bWa\b/, /location/]],
  ['location with too few rows in Wa', () => scope.scores(Q, K, { ...base, score: 'location', Wa: new Float32Array(3 * d) }), RangeError, [/\bWa\b/, /4 keys/]],
  ['unknown option key', () => scope.scores(Q, K, { ...base, temprature: 2 }), TypeError, [/temprature/, /unknown option/]],
  ['missing options', () => scope.scores(Q, K), TypeError, [/options/]],
  ['nq not an integer', () => scope.scores(Q, K, { ...base, nq: 2.5 }), TypeError, [/\bnq\b/, /integer/]],
  ['nk = 0', () => scope.scores(Q, K, { ...base, nk: 0 }), RangeError, [/\bnk\b/]],
  ['dk ≠ d for dot', () => scope.scores(Q, new Float32Array(nk * 6), { ...base, dk: 6, score: 'dot' }), RangeError, [/\bdk\b/, /dot/]],
  ['unknown variant', () => scope.scores(Q, K, { ...base, variant: 'gpu' }), TypeError, [/variant/, /'gpu'/]],
]);

run('softmax()', [
  ['S of the wrong length', () => scope.softmax(S, { rows: nq, cols: nk + 1 }), RangeError, [/\bS\b/, /15/, /12/]],
  ['S as an Array', () => scope.softmax(Array.from(S), { rows: nq, cols: nk }), TypeError, [/\bS\b/, /Float32Array/]],
  ['NaN in S', () => scope.softmax(withNaN(S, 3), { rows: nq, cols: nk }), RangeError, [/\bS\b/, /element 3/, /NaN/]],
  ['temperature 0', () => scope.softmax(S, { rows: nq, cols: nk, temperature: 0 }), RangeError, [/temperature/, /> 0/]],
  ['temperature < 0', () => scope.softmax(S, { rows: nq, cols: nk, temperature: -1 }), RangeError, [/temperature/]],
  ['temperature Infinity', () => scope.softmax(S, { rows: nq, cols: nk, temperature: Infinity }), TypeError, [/temperature/, /finite/]],
  ['temperature too small to divide by', () => scope.softmax(S, { rows: nq, cols: nk, temperature: 1e-300 }), RangeError, [/temperature/]],
  ['unknown mask', () => scope.softmax(S, { rows: nq, cols: nk, mask: 'upper' }), TypeError, [/mask/, /'causal'/]],
  ['keyPadding of the wrong length', () => scope.softmax(S, { rows: nq, cols: nk, keyPadding: [true] }), RangeError, [/keyPadding/, /4/]],
  ['keyPadding a string', () => scope.softmax(S, { rows: nq, cols: nk, keyPadding: '0101' }), TypeError, [/keyPadding/]],
  ['unknown option key', () => scope.softmax(S, { rows: nq, cols: nk, causal: true }), TypeError, [/causal/, /unknown option/]],
]);

run('attention()', [
  ['V of the wrong length', () => scope.attention(Q, K, V.subarray(1), { ...base, dv }), RangeError, [/\bV\b/, /8/]],
  ['dv missing', () => scope.attention(Q, K, V, base), TypeError, [/\bdv\b/]],
  ['NaN in V', () => scope.attention(Q, K, withNaN(V, 1), { ...base, dv }), RangeError, [/\bV\b/, /element 1/]],
  // Q, K and V are checked in one pass over their span in the heap: the first and last element of
  // each, on either side of the alignment gaps between them, must be named by array and index.
  ['-Infinity at the end of Q', () => scope.attention(withNaN(Q, Q.length - 1, -Infinity), K, V, { ...base, dv }), RangeError, [/^Q: element 14\b/]],
  ['NaN at the start of K', () => scope.attention(Q, withNaN(K, 0), V, { ...base, dv }), RangeError, [/^K: element 0\b/]],
  ['Infinity at the end of K', () => scope.attention(Q, withNaN(K, K.length - 1, Infinity), V, { ...base, dv }), RangeError, [/^K: element 19\b/]],
  ['NaN at the end of V', () => scope.attention(Q, K, withNaN(V, V.length - 1), { ...base, dv }), RangeError, [/^V: element 7\b/]],
  ['temperature 0', () => scope.attention(Q, K, V, { ...base, dv, temperature: 0 }), RangeError, [/temperature/]],
  ['unknown scoring name', () => scope.attention(Q, K, V, { ...base, dv, score: 'Cosine' }), TypeError, [/score/, /'Cosine'/]],
  ['additive without weights', () => scope.attention(Q, K, V, { ...base, dv, score: 'additive' }), TypeError, [/W1, W2, v/]],
  ['keyPadding of the wrong length', () => scope.attention(Q, K, V, { ...base, dv, keyPadding: new Uint8Array(3) }), RangeError, [/keyPadding/]],
  ['unknown option key', () => scope.attention(Q, K, V, { ...base, dv, heads: 2 }), TypeError, [/heads/, /unknown option/]],
]);

const manyWords = Array.from({ length: 600 }, (_, i) => `word${i % 10}`).join(' ');
run('attend()', [
  ['empty query', () => scope.attend({ query: '' }), RangeError, [/query/, /empty/]],
  ['whitespace-only query', () => scope.attend({ query: '  \n ' }), RangeError, [/query/]],
  ['empty keys', () => scope.attend({ query: S1, keys: '' }), RangeError, [/keys/]],
  ['lone surrogate in the query', () => scope.attend({ query: 'a\uD800b c' }), RangeError, [/query/, /surrogate/, /index 1/]],
  ['lone low surrogate at the end of the keys', () => scope.attend({ query: S1, keys: 'abc \uDC00' }), RangeError, [/keys/, /surrogate/, /index 4/]],
  ['query not a string', () => scope.attend({ query: 42 }), TypeError, [/query/, /string/]],
  ['missing query', () => scope.attend({ keys: S1 }), TypeError, [/query/]],
  ['unknown scoring name', () => scope.attend({ query: S1, score: 'bahdanau' }), TypeError, [/score/, /'bahdanau'/]],
  ['temperature 0', () => scope.attend({ query: S1, temperature: 0 }), RangeError, [/temperature/, /> 0/]],
  ['temperature < 0', () => scope.attend({ query: S1, temperature: -0.5 }), RangeError, [/temperature/]],
  ['temperature NaN', () => scope.attend({ query: S1, temperature: NaN }), TypeError, [/temperature/]],
  ['p = 0', () => scope.attend({ query: S1, score: 'idw', p: 0 }), RangeError, [/\bp\b/]],
  ['too many tokens (maxTokens)', () => scope.attend({ query: S1, maxTokens: 5 }), RangeError, [/query/, /5/, /token/, /maxTokens/]],
  ['too many tokens in the keys', () => scope.attend({ query: S2, keys: S1, maxTokens: 8 }), RangeError, [/keys/, /8/, /token/, /maxTokens/]],
  ['too many tokens (default 512)', () => scope.attend({ query: manyWords }), RangeError, [/query/, /512/, /token/, /maxTokens/]],
  ['maxTokens 0', () => scope.attend({ query: S1, maxTokens: 0 }), RangeError, [/maxTokens/]],
  ['heads 0', () => scope.attend({ query: S1, heads: 0 }), RangeError, [/heads/]],
  ['heads 1.5', () => scope.attend({ query: S1, heads: 1.5 }), TypeError, [/heads/, /integer/]],
  ['heads above the dimension', () => scope.attend({ query: S1, heads: 101 }), RangeError, [/heads/, /100/]],
  ['heads as a string', () => scope.attend({ query: S1, heads: '2' }), TypeError, [/heads/]],
  ['heads not dividing d with user W', () => scope.attend({ query: S1, heads: 3, score: 'general', W: new Float32Array(33 * 33) }), RangeError, [/heads/, /divide/]],
  ['general W of the wrong size', () => scope.attend({ query: S1, score: 'general', W: new Float32Array(10) }), RangeError, [/\bW\b/, /100, 100/]],
  ['additive with only W1', () => scope.attend({ query: S1, score: 'additive', W1: new Float32Array(100) }), TypeError, [/W1, W2, v/]],
  ['location Wa with fewer rows than tokens', () => scope.attend({ query: S1, score: 'location', Wa: new Float32Array(3 * 100) }), RangeError, [/\bWa\b/]],
  ['W as an Array', () => scope.attend({ query: S1, score: 'general', W: new Array(100 * 100).fill(0) }), TypeError, [/\bW\b/, /Float32Array/]],
  ['unknown projection', () => scope.attend({ query: S1, projection: 'user' }), TypeError, [/projection/, /'identity'/]],
  ['projection object without Wq', () => scope.attend({ query: S1, projection: { Wk: new Float32Array(100), Wv: new Float32Array(100), dHead: 1, dValue: 1 } }), TypeError, [/projection\.Wq/]],
  ['projection Wv of the wrong size', () => scope.attend({ query: S1, projection: { Wq: new Float32Array(100), Wk: new Float32Array(100), Wv: new Float32Array(99), dHead: 1, dValue: 1 } }), RangeError, [/projection\.Wv/]],
  ['projection Wo without dOut', () => scope.attend({ query: S1, projection: { Wq: new Float32Array(100), Wk: new Float32Array(100), Wv: new Float32Array(100), Wo: new Float32Array(4), dHead: 1, dValue: 1 } }), TypeError, [/projection\.dOut/]],
  ['projection NaN in Wq', () => scope.attend({ query: S1, projection: { Wq: withNaN(new Float32Array(100), 5), Wk: new Float32Array(100), Wv: new Float32Array(100), dHead: 1, dValue: 1 } }), RangeError, [/projection\.Wq/, /element 5/]],
  ['seed negative', () => scope.attend({ query: S1, seed: -1 }), RangeError, [/seed/]],
  ['seed above 2^32 − 1', () => scope.attend({ query: S1, seed: 2 ** 32 }), RangeError, [/seed/]],
  ['unknown mask', () => scope.attend({ query: S1, mask: 'future' }), TypeError, [/mask/]],
  ['unknown variant', () => scope.attend({ query: S1, variant: 'avx' }), TypeError, [/variant/]],
  ['unknown option key', () => scope.attend({ query: S1, temp: 0.5 }), TypeError, [/\btemp\b/, /unknown option/]],
  ['options not an object', () => scope.attend(S1), TypeError, [/options/]],
]);

run('tokenize(), embed(), nearest(), variant', [
  ['tokenize a number', () => scope.tokenize(42), TypeError, [/text/, /string/]],
  ['tokenize too many tokens', () => scope.tokenize(S1, { maxTokens: 3 }), RangeError, [/3/, /token/, /maxTokens/]],
  ['tokenize unknown option', () => scope.tokenize(S1, { max: 3 }), TypeError, [/\bmax\b/]],
  ['tokenize a lone surrogate', () => scope.tokenize('x \uD83D'), RangeError, [/text/, /surrogate/, /index 2/]],
  ['embed a lone surrogate', () => scope.embed('\uDE00x'), RangeError, [/word/, /surrogate/]],
  ['embed empty', () => scope.embed(''), TypeError, [/word/]],
  ['embed a number', () => scope.embed(7), TypeError, [/word/]],
  ['nearest k = 0', () => scope.nearest('king', 0), RangeError, [/\bk\b/]],
  ['nearest vector of the wrong length', () => scope.nearest(new Float32Array(99)), RangeError, [/wordOrVector/, /100/]],
  ['nearest a number', () => scope.nearest(5), TypeError, [/wordOrVector/]],
  ['variant setter', () => { scope.variant = 'gpu'; }, TypeError, [/variant/, /'gpu'/]],
]);

// Errors found by the core (after this layer's checks) reach JS in JS spelling: no C++ identifier
// (max_tokens, max_keys, d_q, ...) in any message.
describe('core errors speak JS', () => {
  const core = [
    ['attend: too many tokens', () => scope.attend({ query: S1, maxTokens: 5 })],
    ['attend: location Wa with fewer rows than tokens', () => scope.attend({ query: S1, score: 'location', Wa: new Float32Array(3 * 100) })],
    ['tokenize: too many tokens', () => scope.tokenize(S1, { maxTokens: 3 })],
  ];
  for (const [label, fn] of core) {
    test(label, () => {
      assert.throws(fn, (e) => {
        assert.ok(e instanceof RangeError, `${label}: ${e}`);
        assert.doesNotMatch(e.message, /\b[a-z]+_[a-z_]+\b/, `${label}: "${e.message}" names a C++ identifier`);
        return true;
      });
      stillWorks(label);
    });
  }
});

describe('createAttnScope()', () => {
  test('unknown option key', async () => {
    await assert.rejects(loadScope({ vocab: 'small' }), (e) => e instanceof TypeError && /vocab/.test(e.message) && /unknown option/.test(e.message));
  });
  test('vocabulary of the wrong type', async () => {
    await assert.rejects(loadScope({ vocabulary: 42 }), (e) => e instanceof TypeError && /vocabulary/.test(e.message));
  });
  test('corrupt vocabulary bytes', async () => {
    await assert.rejects(loadScope({ vocabulary: new Uint8Array(200).fill(7) }), (e) => e instanceof Error && /vocabulary/.test(e.message));
  });
  test('a vocabulary file that does not exist', async () => {
    await assert.rejects(loadScope({ vocabulary: new URL('file:///nonexistent/attnscope-vocab.bin') }), (e) => e instanceof Error && /attnscope-vocab\.bin|ENOENT/.test(e.message));
  });
  test('loadVocabulary() refuses a file given to it (the file is chosen when the scope is made)', async () => {
    const s = await loadScope({ vocabulary: 'small' });
    await assert.rejects(s.loadVocabulary('/some/other.bin'),
      (e) => e instanceof TypeError && /takes no argument/.test(e.message) && /newScope\(\{ vocabulary \}\)/.test(e.message));
    assert.equal((await s.loadVocabulary()).size > 0, true);
    s.dispose();
  });
});

after(() => stillWorks('at the end'));
