// The lab's state in its URL hash, as the demo's (web/pages/demo/state.js): the rule, the scoring function, the
// learning rate, the seed, whether the head learns its temperature (tau=learned), and the comparison's
// functions, outputs and length. Only fields that differ from
// the defaults are written; every field read is checked, and one that is not understood keeps its
// default and is reported (cut short: a link cannot make the page echo text of its author's choosing).
// The names (rules, scoring functions) are arguments, so this stays pure: the page passes the worker's
// registry, the tests the built module's.
import { COMPARE_STEPS, COMPARE_DEFAULT_STEPS, OUTPUTS } from '../../../lab/compare.js';

export const LEARNING_RATES = [0.003, 0.01, 0.03];
export const MAX_PROBLEMS = 4;

/** The defaults; `scores` is every scoring function (the comparison trains all of them, attention only). */
export function labDefaults(scores) {
  return { rule: 'previous', score: 'scaled-dot', lr: 0.01, seed: 1, learnTau: false, cmp: [...scores], out: ['none'], steps: COMPARE_DEFAULT_STEPS };
}

/** The state as "#rule=…&cmp=…" (fields equal to their defaults are left out; '' when all are). */
export function labToHash(state, { scores }) {
  const d = labDefaults(scores);
  const p = new URLSearchParams();
  for (const k of ['rule', 'score', 'lr', 'seed', 'steps']) if (state[k] !== d[k]) p.set(k, String(state[k]));
  if (state.learnTau) p.set('tau', 'learned');
  const cmp = scores.filter((s) => state.cmp.includes(s));   // the registry's order
  if (cmp.length !== scores.length) p.set('cmp', cmp.length ? cmp.join(',') : 'none');
  const out = OUTPUTS.filter((o) => (state.out || d.out).includes(o));
  if (out.join(',') !== d.out.join(',')) p.set('out', out.length ? out.join(',') : 'none');
  const s = p.toString();
  return s ? `#${s}` : '';
}

/** Reads a hash: { state, problems } (problems: "field “value” why", at most MAX_PROBLEMS). */
export function labFromHash(hash, { scores, rules }) {
  const state = labDefaults(scores);
  const problems = [];
  const text = String(hash || '').replace(/^[#?]/, '');
  if (!text) return { state, problems };
  const cut = (t, n) => (t.length > n ? `${t.slice(0, n)}…` : t);
  const bad = (field, value, why) => problems.push(`${cut(String(field), 20)} “${cut(String(value), 40)}” ${why}`);
  let p;
  try { p = new URLSearchParams(text); } catch { return { state, problems: ['the link could not be read'] }; }
  const known = new Set(['rule', 'score', 'lr', 'seed', 'tau', 'cmp', 'out', 'steps']);
  for (const key of p.keys()) if (!known.has(key)) bad(key, p.get(key), 'is not a setting of the lab');
  if (p.has('rule')) {
    if (rules.includes(p.get('rule'))) state.rule = p.get('rule');
    else bad('rule', p.get('rule'), `is not one of ${rules.join(', ')}`);
  }
  if (p.has('score')) {
    if (scores.includes(p.get('score'))) state.score = p.get('score');
    else bad('score', p.get('score'), 'is not a scoring function');
  }
  if (p.has('lr')) {
    const v = p.get('lr');
    const n = /^\d*\.?\d+$/.test(v) ? Number(v) : NaN;
    if (LEARNING_RATES.includes(n)) state.lr = n;
    else bad('lr', v, `is not one of ${LEARNING_RATES.join(', ')}`);
  }
  if (p.has('seed')) {
    const v = p.get('seed');
    const n = /^\d{1,10}$/.test(v) ? Number(v) : NaN;
    if (Number.isInteger(n) && n <= 0xffffffff) state.seed = n;
    else bad('seed', v, 'is not a whole number from 0 to 4294967295');
  }
  if (p.has('tau')) {
    const v = p.get('tau');
    if (v === 'learned' || v === 'fixed') state.learnTau = v === 'learned';
    else bad('tau', v, 'is not learned or fixed');
  }
  if (p.has('steps')) {
    const v = p.get('steps');
    const n = /^\d{1,4}$/.test(v) ? Number(v) : NaN;
    if (COMPARE_STEPS.includes(n)) state.steps = n;
    else bad('steps', v, `is not one of ${COMPARE_STEPS.join(', ')}`);
  }
  if (p.has('cmp')) {
    const v = p.get('cmp');
    if (v === 'none') state.cmp = [];
    else {
      const names = v.split(',');
      const unknown = names.filter((n) => !scores.includes(n));
      if (unknown.length) bad('cmp', unknown[0], 'is not a scoring function');
      state.cmp = scores.filter((s) => names.includes(s));
      if (!state.cmp.length) state.cmp = [...scores];
    }
  }
  if (p.has('out')) {
    const names = p.get('out').split(',');
    const unknown = names.filter((n) => !OUTPUTS.includes(n));
    if (unknown.length) bad('out', unknown[0], `is not one of ${OUTPUTS.join(', ')}`);
    state.out = OUTPUTS.filter((o) => names.includes(o));
    if (!state.out.length) state.out = ['none'];
  }
  if (problems.length > MAX_PROBLEMS) {
    const more = problems.length - (MAX_PROBLEMS - 1);
    problems.splice(MAX_PROBLEMS - 1, problems.length, `and ${more} more`);
  }
  return { state, problems };
}
