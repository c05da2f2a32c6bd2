// Property tests (fast-check) of the page's URL state (web/state.js): any hash, however hostile,
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

// web/state.js imports the registry as 'virtual:registry', which the page's build provides: bundle
// it here the same way, with the registry of the built module.
const registry = await loadDistRegistry(join(ROOT, 'dist'));
const tmp = mkdtempSync(join(tmpdir(), 'attnscope-state-'));
await esbuild.build({
  entryPoints: [join(ROOT, 'web/state.js')], bundle: true, format: 'esm', outfile: join(tmp, 'state.mjs'), logLevel: 'warning',
  plugins: [{ name: 'registry', setup(b) {
    b.onResolve({ filter: /^virtual:registry$/ }, () => ({ path: 'registry', namespace: 'virtual' }));
    b.onLoad({ filter: /.*/, namespace: 'virtual' }, () => ({ contents: JSON.stringify(registry), loader: 'json' }));
  } }],
});
const {
  fromHash, toHash, defaultState, SCORE_NAMES, HEAD_CHOICES, PROJECTIONS, MASKS, VARIANTS, VALUE_KINDS,
  T_MIN, T_MAX, MAX_TEXT, MAX_PROBLEMS, roundT,
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
  assert.ok(HEAD_CHOICES.includes(state.heads));
  assert.ok(Number.isInteger(state.head) && state.head >= 0 && state.head < state.heads);
  assert.ok(Number.isInteger(state.seed) && state.seed >= 0 && state.seed <= 0xffffffff);
  assert.ok(Number.isFinite(state.p) && state.p >= 0.5 && state.p <= 8);
  assert.ok(typeof state.pos === 'boolean' && typeof state.exp === 'boolean');
  assert.ok(state.cell === null || (state.cell.length === 2 && state.cell.every(Number.isInteger)));
  assert.ok(state.row === null || Number.isInteger(state.row));
}

// Hashes made of the page's own keys and hostile ones, with any values.
const key = fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 50 }));
const value = fc.oneof(fc.string({ maxLength: 3000 }), fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.double().map(String), fc.integer().map(String), fc.constantFrom('', '1', 'true', 'NaN', 'Infinity', '1e400', '0x10', '3,4'));
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
  row: fc.option(fc.nat(9999), { nil: null }), exp: fc.boolean(), headPick: fc.nat(9),
}).map(({ headPick, ...s }) => ({ ...s, t: Math.min(T_MAX, Math.max(T_MIN, s.t)), head: headPick % s.heads }));

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
