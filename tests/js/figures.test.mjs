// The figures' registry (web/shared/figures/registry.js): the element's views and its .d.ts union are the
// same list; every name an entry uses exists (its figures, its computations, its slot on the demo
// page); the demo's worker and the compute modules import no figure file; and a computation asked for
// by name (web/shared/compute/teaching.js) is the module's own call.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { unionMembers } from '../../scripts/registry.mjs';
import { DIST, ROOT, loadScope } from './helpers.mjs';
import { FIGURES, VIEWS, stepsFor } from '../../web/shared/figures/registry.js';
import { STEPS } from '../../web/shared/compute/teaching.js';
import { compute, context } from '../../web/shared/compute/attention.js';

const WHEN = ['first', 'after-frame', 'extras', 'idle', 'model'];
/** What an entry may name in `needs` besides the computations of STEPS. */
const RESULT_PARTS = ['scores', 'keyVectors'];

/** Every local module `file` imports, directly or not (static imports of relative paths). */
function importGraph(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]/gm)) {
    importGraph(resolve(dirname(file), m[1]), seen);
  }
  return seen;
}

describe('the figures registry', () => {
  test('the element\'s view union in bindings/element.d.ts is the registry\'s views, in order', () => {
    const dts = readFileSync(join(ROOT, 'bindings/element.d.ts'), 'utf8');
    assert.deepEqual(unionMembers(dts, 'AttnScopeView'), Object.keys(VIEWS));
  });

  test('every entry names a class, a feed and a time to draw; its views and needs name what exists', () => {
    // The built page: its rows of slots are written by the build ({{row …}}, scripts/pages.mjs).
    const html = readFileSync(join(DIST, 'web/index.html'), 'utf8');
    for (const [name, e] of Object.entries(FIGURES)) {
      assert.equal(typeof e.figure, 'function', `${name}: figure`);
      assert.equal(typeof e.feed, 'function', `${name}: feed`);
      assert.ok(WHEN.includes(e.when), `${name}: when is one of ${WHEN.join(', ')}`);
      for (const need of e.needs || []) assert.ok(need in STEPS || RESULT_PARTS.includes(need), `${name} needs ${need}`);
      if (e.slot) assert.match(html, new RegExp(`id="${e.slot}"`), `${name}: its slot #${e.slot} is on the demo page`);
    }
    for (const [view, names] of Object.entries(VIEWS)) {
      assert.ok(names.length > 0, view);
      for (const n of names) assert.ok(n in FIGURES, `view ${view} shows ${n}`);
    }
  });

  test('the demo\'s computations are the ones its figures need', () => {
    const demo = Object.keys(FIGURES).filter((n) => FIGURES[n].slot);
    assert.deepEqual(new Set(stepsFor(demo)), new Set(Object.keys(STEPS)),
      'every computation of web/shared/compute/teaching.js is needed by a figure of the demo');
  });

  test('the demo\'s worker and the compute modules import no figure module', () => {
    for (const entry of ['web/pages/demo/demo-worker.js', 'web/shared/compute/attention.js', 'web/shared/compute/teaching.js', 'web/shared/compute/images.js', 'web/shared/compute/use-lite.js']) {
      const figures = [...importGraph(join(ROOT, entry))].filter((f) => f.includes(`${join('web', 'figures')}/`));
      assert.deepEqual(figures, [], `${entry} imports ${figures.join(', ')}`);
    }
  });
});

describe('computations asked for by name', () => {
  test('need(name) is the module\'s own call, computed once', async () => {
    const scope = await loadScope();
    const st = { q: 'the cat sat on the mat', k: '', score: 'cosine', t: 0.1, heads: 1, proj: 'identity', seed: 1, pos: false,
      mask: 'none', variant: 'auto', head: 0, values: 'weights', p: 3, cell: null, row: null, rows: [], cols: [], exp: true };
    const c = compute(scope, st, { limit: 64 });
    const x = context(scope, c, st, { scoreNames: ['dot'], scoreInfo: new Map(), nearest: () => [] });
    const idw = x.need('idw');
    const ref = scope.attend({ ...c.base, temperature: 1, score: 'idw', p: 3 });
    assert.deepEqual(idw.weights, ref.weights);
    assert.equal(x.need('idw'), idw, 'the second ask returns the same result');
    const hull = x.need('hull');
    assert.equal(hull.heads, 1);
    assert.deepEqual(hull.output, scope.attend({ ...c.base, score: st.score, heads: 1, projection: 'identity' }).output);
    const g = x.need('hullGeometry');
    assert.equal(g.showExperimental, true);
    assert.equal(g.nk, hull.nk);
    assert.throws(() => x.need('nothing'), /no computation named nothing/);
  });
});

describe('numbers a sentence compares (#34 item 8: "dot prefers street (20.8 vs 20.8)")', () => {
  test('fmtApart writes two different numbers with the digits it takes to tell them apart', async () => {
    const { fmt, fmtApart } = await import('../../web/shared/figures/base.js');
    assert.deepEqual(fmtApart(20.84, 20.79), ['20.84', '20.79']);
    assert.deepEqual(fmtApart(20.8412, 20.8407), ['20.8412', '20.8407']);
    assert.deepEqual(fmtApart(0.5, 0.25, 2), ['0.5', '0.25'], 'apart already: as fmt writes them');
    assert.deepEqual(fmtApart(3, 3), [fmt(3), fmt(3)], 'equal numbers are written as they are');
    // Every pair that differs reads differently (up to 7 digits, float32's precision).
    for (const [a, b] of [[20.81, 20.82], [1.0001, 1.0002], [-0.31416, -0.31419], [123.45, 123.46]]) {
      const [x, y] = fmtApart(a, b);
      assert.notEqual(x, y, `${a} vs ${b}`);
    }
  });
});
