// The surgery options every model's encode takes, read once for all of them (USE-Lite's Model,
// scope-model.mjs; the transformer, scope-transformer.mjs): options.score (one scoring function's name
// for every head, or { label: name } for some) and options.ablate (labels of heads to knock out).
import { checkPlainEntries, clip, describe } from './scope-checks.mjs';

/**
 * { scores: '' | one registry name per head joined by ',', ablate: '' | '0'/'1' per head } from
 * `options`. names: the registry's scoring functions; count: the model's heads; own: each head's own
 * score (what a head not named in a { label: name } map keeps); index(name, label): a label's head
 * index (throws naming `name` when it is not one); example: a label to show in messages.
 */
export function surgeryOptions(options, { names, count, own, index, example }) {
  const checkName = (name, value) => {
    if (typeof value !== 'string' || !names.includes(value)) {
      throw new (typeof value === 'string' ? RangeError : TypeError)(`${name}: expected one of ${names.map((n) => `'${n}'`).join(', ')}, got ${describe(value)}`);
    }
    return value;
  };
  let scores = '';
  const s = options.score;
  if (typeof s === 'string') {
    scores = Array(count).fill(checkName('options.score', s)).join(',');
  } else if (s !== undefined) {
    if (s === null || typeof s !== 'object' || Array.isArray(s))
      throw new TypeError(`options.score: expected a scoring function's name or an object { '${example}': name }, got ${describe(s)}`);
    const per = [...own];
    for (const [label, value] of checkPlainEntries('options.score', s, `{ '${example}': name } naming at least one head`)) {
      const name = `options.score['${clip(label)}']`;
      per[index(name, label)] = checkName(name, value);
    }
    scores = per.join(',');
  }
  let ablate = '';
  if (options.ablate !== undefined) {
    if (!Array.isArray(options.ablate)) throw new TypeError(`options.ablate: expected an array of head labels ('${example}'), got ${describe(options.ablate)}`);
    const flags = Array(count).fill('0');
    options.ablate.forEach((label, i) => { flags[index(`options.ablate[${i}]`, label)] = '1'; });
    ablate = flags.join('');
  }
  return { scores, ablate };
}
