// Head labels 'L.H' (layer L, head H, both counted from 0, any number of digits): the one reader of
// them, for the API (scope-checks.mjs headIndex: models' score maps, knock-outs) and the pages
// (web/shared/head-label.js: URL state, figures, the element's attributes).

/** [layer, head] of a label 'L.H', or null when it is not one (a string of two whole numbers joined by '.'). */
export function parseHeadLabel(label) {
  const m = typeof label === 'string' ? /^(\d+)\.(\d+)$/.exec(label) : null;
  return m ? [Number(m[1]), Number(m[2])] : null;
}
