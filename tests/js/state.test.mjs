// Property tests (fast-check) of the page's URL state (web/pages/demo/state.js): any hash, however hostile,
// gives a valid state and a bounded list of problems (issue 15: a link could make the notice echo a
// sentence of its author's choosing), and every state survives the round trip through the URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import fc from 'fast-check';
import { ROOT } from './helpers.mjs';
import { loadDistRegistry } from '../../scripts/registry.mjs';
import { naturalT, temperatureNote, maxRatio } from '../../web/shared/temperature.js';

// web/pages/demo/state.js imports the registry as 'virtual:registry', which the page's build provides: bundle
// it here the same way, with the registry of the built module.
const registry = await loadDistRegistry(join(ROOT, 'dist'));
const tmp = mkdtempSync(join(tmpdir(), 'attnscope-state-'));
await esbuild.build({
  entryPoints: [join(ROOT, 'web/pages/demo/state.js')], bundle: true, format: 'esm', outfile: join(tmp, 'state.mjs'), logLevel: 'warning',
  plugins: [{ name: 'registry', setup(b) {
    b.onResolve({ filter: /^virtual:registry$/ }, () => ({ path: 'registry', namespace: 'virtual' }));
    b.onLoad({ filter: /.*/, namespace: 'virtual' }, () => ({ contents: JSON.stringify(registry), loader: 'json' }));
  } }],
});
const {
  fromHash, toHash, defaultState, SCORE_NAMES, HEAD_CHOICES, PROJECTIONS, MASKS, VARIANTS, VALUE_KINDS,
  T_MIN, T_MAX, MAX_TEXT, MAX_PROBLEMS, roundT, MAX_INDEX, MAX_LIST_TEXT, formatIndexList, parseIndexList,
  ENGINES, MODEL_LAYERS, MODEL_HEADS,
} = await import(pathToFileURL(join(tmp, 'state.mjs')).href);
rmSync(tmp, { recursive: true, force: true });

const KEYS = Object.keys(defaultState());
// The longest reason a problem gives, plus 20 characters of key, 40 of value, quotes and ellipses.
const MAX_PROBLEM_CHARS = 20 + 1 + 40 + 6 + 120;

function assertValid(state) {
  assert.deepEqual(Object.keys(state).sort(), [...KEYS].sort());
  assert.ok(typeof state.q === 'string' && state.q.length <= MAX_TEXT);
  assert.ok(typeof state.k === 'string' && state.k.length <= MAX_TEXT);
  assert.ok(SCORE_NAMES.includes(state.score));
  assert.ok(PROJECTIONS.includes(state.proj) && MASKS.includes(state.mask) && VARIANTS.includes(state.variant));
  assert.ok(VALUE_KINDS.includes(state.values));
  assert.ok(Number.isFinite(state.t) && state.t >= T_MIN && state.t <= T_MAX);
  assert.ok(state.tset || state.t === naturalT(state.score), 'an unchosen τ is the scoring function\'s own');
  assert.ok(HEAD_CHOICES.includes(state.heads));
  assert.ok(Number.isInteger(state.head) && state.head >= 0 && state.head < state.heads);
  assert.ok(Number.isInteger(state.seed) && state.seed >= 0 && state.seed <= 0xffffffff);
  assert.ok(Number.isFinite(state.p) && state.p >= 0.5 && state.p <= 8);
  assert.ok(typeof state.pos === 'boolean' && typeof state.exp === 'boolean');
  assert.ok(state.cell === null || (state.cell.length === 2 && state.cell.every(Number.isInteger)));
  assert.ok(state.row === null || Number.isInteger(state.row));
  assert.ok(ENGINES.includes(state.engine));
  assert.ok(SCORE_NAMES.includes(state.mswap));
  assert.ok([2, 1, 0.5, 0.2, 0.1, 0.05].includes(state.mtau), `mtau ${state.mtau}`);
  const isHead = (x) => { const m = /^(\d)\.(\d)$/.exec(x); return !!m && Number(m[1]) < MODEL_LAYERS && Number(m[2]) < MODEL_HEADS; };
  assert.ok(isHead(state.mhead), `mhead ${state.mhead}`);
  assert.ok(Array.isArray(state.mknock) && state.mknock.every(isHead) && state.mknock.every((x, i) => !i || x > state.mknock[i - 1]), 'mknock: sorted unique heads');
  for (const field of ['rows', 'cols']) {
    const list = state[field];
    assert.ok(Array.isArray(list) && list.length <= MAX_INDEX + 1, `${field} is a bounded array`);
    list.forEach((v, i) => {
      assert.ok(Number.isInteger(v) && v >= 0 && v <= MAX_INDEX, `${field}: ${v} is a token index`);
      if (i) assert.ok(v > list[i - 1], `${field} is sorted and unique`);
    });
  }
}

// Hashes made of the page's own keys and hostile ones, with any values.
const key = fc.oneof(fc.constantFrom(...KEYS), fc.constantFrom('engine', 'mhead', 'mswap', 'mknock', 'model-head', 'head-score', 'head-temperature', 'knock-out'), fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 50 }));
const value = fc.oneof(fc.string({ maxLength: 3000 }), fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.double().map(String), fc.integer().map(String), fc.constantFrom('', '1', 'true', 'NaN', 'Infinity', '1e400', '0x10', '3,4'),
  // Selection lists (rows, cols): well formed, backwards, overlapping, huge, signed, spaced.
  fc.constantFrom('3,5-9', '9-3', '0-9999', '1-3,2-4', '-1', '1,,2', '1-', '12345', '1, 2', '0-9999,0-9999'),
  // The trained model's heads (model-head, knock-out: 0-based "layer.head"; the old mhead, mknock:
  // 1-based), good and bad.
  fc.constantFrom('1.1', '2.4', '0.1', '0.0', '1.3', '3.1', '1.5', '01.1', '1.1,2.4', '1.1,1.1', '2.4,1.1', '0.3,1.0', '1.1,', 'model', 'scores', 'cosine'),
  fc.array(fc.tuple(fc.nat(MAX_INDEX), fc.nat(20)), { maxLength: 40 }).map((xs) => xs.map(([a, n]) => (n % 3 ? `${a}` : `${a}-${a + n}`)).join(',')));
const hash = fc.oneof(
  fc.array(fc.tuple(key, value), { maxLength: 30 }).map((pairs) => '#' + new URLSearchParams(pairs).toString()),
  fc.string({ maxLength: 500 }),
  fc.string({ unit: 'binary', maxLength: 500 }),
);

test('fromHash: any hash gives a valid state and a short, bounded list of problems', () => {
  fc.assert(fc.property(hash, (h) => {
    const { state, problems } = fromHash(h);
    assertValid(state);
    assert.ok(problems.length <= MAX_PROBLEMS, `${problems.length} problems`);
    for (const p of problems) assert.ok(p.length <= MAX_PROBLEM_CHARS, `a problem of ${p.length} characters: ${p}`);
  }), { numRuns: 2000 });
});

test('fromHash: an unknown key is echoed only in part (the issue\'s attacker sentence)', () => {
  const sentence = 'Your session expired. Call 555-0100 and give your password to our support staff';
  const { problems } = fromHash('#' + new URLSearchParams([[sentence, 'now']]).toString());
  assert.equal(problems.length, 1);
  assert.ok(!problems[0].includes('password'), problems[0]);
  assert.match(problems[0], /^Your session expired…/);
  const many = fromHash('#' + Array.from({ length: 50 }, (_, i) => `x${i}=1`).join('&')).problems;
  assert.equal(many.length, MAX_PROBLEMS);
  assert.equal(many.at(-1), `and ${50 - MAX_PROBLEMS + 1} more`);
});

// Valid states: every field drawn from what the page can hold.
const validState = fc.record({
  q: fc.string({ maxLength: 200 }), k: fc.string({ maxLength: 200 }),
  score: fc.constantFrom(...SCORE_NAMES), t: fc.double({ min: T_MIN, max: T_MAX, noNaN: true }).map(roundT),
  heads: fc.constantFrom(...HEAD_CHOICES), proj: fc.constantFrom(...PROJECTIONS),
  seed: fc.integer({ min: 0, max: 0xffffffff }), pos: fc.boolean(), mask: fc.constantFrom(...MASKS),
  variant: fc.constantFrom(...VARIANTS), values: fc.constantFrom(...VALUE_KINDS),
  p: fc.constantFrom(0.5, 1, 1.5, 2, 3, 4, 8), cell: fc.option(fc.tuple(fc.nat(9999), fc.nat(9999)), { nil: null }),
  row: fc.option(fc.nat(9999), { nil: null }), exp: fc.boolean(), headPick: fc.nat(9), tset: fc.boolean(),
  engine: fc.constantFrom(...ENGINES), mswap: fc.constantFrom(...SCORE_NAMES), mtau: fc.constantFrom(2, 1, 0.5, 0.2, 0.1, 0.05),
  mhead: fc.tuple(fc.nat(MODEL_LAYERS - 1), fc.nat(MODEL_HEADS - 1)).map(([l, h]) => `${l}.${h}`),
  mknock: fc.uniqueArray(fc.tuple(fc.nat(MODEL_LAYERS - 1), fc.nat(MODEL_HEADS - 1)).map(([l, h]) => `${l}.${h}`)).map((a) => a.sort()),
  rows: fc.uniqueArray(fc.nat(MAX_INDEX), { maxLength: 60 }).map((a) => a.sort((x, y) => x - y)),
  cols: fc.uniqueArray(fc.nat(MAX_INDEX), { maxLength: 60 }).map((a) => a.sort((x, y) => x - y)),
}).map(({ headPick, ...s }) => ({
  ...s, t: s.tset ? Math.min(T_MAX, Math.max(T_MIN, s.t)) : naturalT(s.score), head: headPick % s.heads,
}));

test('toHash/fromHash: every valid state survives the round trip, with no problem reported', () => {
  fc.assert(fc.property(validState, (s) => {
    const back = fromHash(toHash(s));
    assert.deepEqual(back.problems, []);
    // An empty query with keys is not a state a link can say (a link with q only means self-attention).
    if (s.q === '' && s.k !== '') return;
    const want = { ...s };
    if (toHash(s) === '' || toHash(s) === '#') return;   // the default state: an empty link
    assert.deepEqual(back.state, want);
  }), { numRuns: 1000 });
});

test('fromHash(toHash(fromHash(h))) is fromHash(h): what a link opens is what it then says', () => {
  fc.assert(fc.property(hash, (h) => {
    const once = fromHash(h).state;
    const twice = fromHash(toHash(once));
    assert.deepEqual(twice.problems, []);
    assert.deepEqual(twice.state, once);
  }), { numRuns: 1000 });
});

test('selections: rows and cols are written with ranges ("3,5-9") and read back', () => {
  assert.equal(formatIndexList([3, 5, 6, 7, 8, 9]), '3,5-9');
  assert.equal(formatIndexList([0, 1, 4]), '0,1,4');
  assert.equal(formatIndexList([]), '');
  assert.deepEqual(parseIndexList('3,5-9'), [3, 5, 6, 7, 8, 9]);
  assert.deepEqual(parseIndexList('9,1-3,2'), [1, 2, 3, 9]);
  const s = { ...defaultState(), rows: [0, 2, 3, 4], cols: [1] };
  const hash = toHash(s);
  assert.match(hash, /(^#|&)rows=0%2C2-4(&|$)/);
  assert.match(hash, /(^#|&)cols=1(&|$)/);
  assert.deepEqual(fromHash(hash).state.rows, [0, 2, 3, 4]);
  assert.deepEqual(fromHash(hash).state.cols, [1]);
  assert.doesNotMatch(toHash(defaultState()), /rows|cols/, 'an empty selection is not written');
});

test('selections: a bad list is refused with a problem naming the field, and the selection stays empty', () => {
  for (const bad of ['9-3', '-1', '1,,2', 'a', '1.5', '12345', '1, 2', '3-', '0-99999', '1'.repeat(5)]) {
    const { state, problems } = fromHash(`#q=x&rows=${encodeURIComponent(bad)}`);
    assert.deepEqual(state.rows, [], bad);
    assert.equal(problems.length, 1, bad);
    assert.match(problems[0], /^rows “/, bad);
  }
  const long = Array.from({ length: 3000 }, (_, i) => i * 3).join(',');
  assert.ok(long.length > MAX_LIST_TEXT);
  const { state, problems } = fromHash(`#q=x&cols=${long}`);
  assert.deepEqual(state.cols, []);
  assert.match(problems[0], /^cols “.{0,40}…” is longer than/);
});

test('selections: formatIndexList and parseIndexList are inverse on every sorted unique list', () => {
  fc.assert(fc.property(fc.uniqueArray(fc.nat(MAX_INDEX), { maxLength: 300 }), (a) => {
    const list = a.sort((x, y) => x - y);
    const text = formatIndexList(list);
    if (text.length > MAX_LIST_TEXT) return;   // longer lists do not fit a link (refused with a problem)
    assert.deepEqual(parseIndexList(text), list);
  }), { numRuns: 1000 });
});

test('the trained model\'s fields: in the link under the element\'s names, heads 0-based as the API and the element write them', () => {
  const { state, problems } = fromHash('#engine=model&model-head=1.2&head-score=cosine&head-temperature=0.1&knock-out=1.3,0.0,0.0');
  assert.deepEqual(problems, []);
  assert.equal(state.engine, 'model');
  assert.equal(state.mhead, '1.2');
  assert.equal(state.mswap, 'cosine');
  assert.equal(state.mtau, 0.1);
  assert.deepEqual(state.mknock, ['0.0', '1.3']);
  const h = toHash(state);
  assert.match(h, /model-head=1\.2/);
  assert.match(h, /head-score=cosine/);
  assert.match(h, /head-temperature=0\.1/);
  assert.doesNotMatch(toHash(defaultState()), /head-temperature/, 'the model\'s own τ = 1 is not written');
  assert.match(h, /knock-out=0\.0%2C1\.3/);
  assert.doesNotMatch(h, /mhead|mswap|mknock/, 'the old names are not written');
  for (const [h2, field] of [['#model-head=2.0', 'model-head'], ['#model-head=1.4', 'model-head'], ['#model-head=01.2', 'model-head'],
    ['#knock-out=0.4', 'knock-out'], ['#head-score=nope', 'head-score'], ['#head-temperature=0.3', 'head-temperature'],
    ['#head-temperature=-1', 'head-temperature'], ['#engine=gpt', 'engine']]) {
    const r = fromHash(h2);
    assert.equal(r.problems.length, 1, h2);
    assert.match(r.problems[0], new RegExp(`^${field} `));
    assert.deepEqual({ ...r.state, cell: defaultState().cell }, defaultState(), `${h2}: the defaults kept`);
  }
  assert.match(fromHash('#model-head=2.0').problems[0], /layers 0–1, heads 0–3/);
});

test('links made before: mhead, mswap and mknock (heads 1-based) still open the same surgery, and are written anew', () => {
  const { state, problems } = fromHash('#engine=model&mhead=2.3&mswap=cosine&mknock=2.4,1.1,1.1');
  assert.deepEqual(problems, []);
  assert.equal(state.mhead, '1.2');
  assert.equal(state.mswap, 'cosine');
  assert.deepEqual(state.mknock, ['0.0', '1.3']);
  assert.match(toHash(state), /model-head=1\.2&head-score=cosine&knock-out=0\.0%2C1\.3/);
  for (const [h, field] of [['#mhead=3.1', 'mhead'], ['#mhead=0.1', 'mhead'], ['#mknock=1.5', 'mknock'], ['#mswap=nope', 'mswap']]) {
    const r = fromHash(h);
    assert.equal(r.problems.length, 1, h);
    assert.match(r.problems[0], new RegExp(`^${field} `));
  }
  // The new names win over the old.
  assert.equal(fromHash('#mhead=1.1&model-head=1.3').state.mhead, '1.3');
});

test('τ follows the scoring function until chosen; a link carries t only when it was chosen', () => {
  for (const score of SCORE_NAMES) {
    const t = naturalT(score);
    assert.ok(t >= T_MIN && t <= T_MAX, score);
    // A link naming only the function opens it at its own τ, and writes no t back.
    const { state } = fromHash(`#q=a&score=${score}`);
    assert.equal(state.t, t, score);
    assert.equal(state.tset, false);
    assert.doesNotMatch(toHash(state), /(^#|&)t=/);
  }
  assert.equal(naturalT('cosine'), 0.1);
  assert.equal(naturalT('scaled-dot'), 1);
  // A chosen τ is kept, written, and read back as chosen.
  const chosen = fromHash('#q=a&score=scaled-dot&t=0.1').state;
  assert.deepEqual([chosen.t, chosen.tset], [0.1, true]);
  assert.match(toHash(chosen), /(^#|&)t=0\.1(&|$)/);
});

test('a kept τ that changes a function\'s meaning is named, with the numbers that show it', () => {
  // Scaled-dot at τ = 1/√d is plain dot (d = 100 with one head).
  assert.match(temperatureNote('scaled-dot', 0.1, { heads: 1 }), /0\.1 × √100 = 1: it behaves as plain dot/);
  assert.match(temperatureNote('scaled-dot', 0.5, { heads: 4 }), /0\.5 × √25 = 2\.5\./);
  assert.equal(temperatureNote('scaled-dot', 1), '');
  // Dot at τ = √d is scaled-dot.
  assert.match(temperatureNote('dot', 10, { heads: 1 }), /it is scaled-dot/);
  // Cosine at τ = 1: scores in [−1, 1], the largest weight ratio e² ≈ 7.39.
  assert.ok(Math.abs(maxRatio('cosine', 1) - Math.exp(2)) < 1e-12);
  assert.match(temperatureNote('cosine', 1), /\[−1, 1\].*e\^\(2\/τ\) ≈ 7\.39 .*cannot get sharp/);
  // Where the bound does not bite (τ = 0.2: ratio e^10), nothing is said; nor for a function's own τ.
  assert.equal(temperatureNote('cosine', 0.2), '');
  assert.equal(temperatureNote('cosine', 0.1), '');
  assert.equal(temperatureNote('idw', 0.1), '');
});
