// Head labels 'L.H': layer L, head H of a model, 0-based as the API names them (the trained model's
// views, web/shared/compute/use-lite.js; its figures; the element's `mhead`); links and the screen write
// them 1-based (the demo's URL state, web/pages/demo/state.js). Labels are read by the API's reader
// (bindings/scope-labels.mjs), so a label the page writes is one the API takes and the other way round.
import { parseHeadLabel } from '../../bindings/scope-labels.mjs';

/** 'L.H' (0-based, as the API) of layer l, head h. */
export const headLabel = (l, h) => `${l}.${h}`;

/** [layer, head] of a label 'L.H', or null when it is not one of a model of `layers` × `heads`. */
export function parseHead(label, layers = Infinity, heads = Infinity) {
  const at = parseHeadLabel(label);   // the API's reader: any number of digits
  return at && at[0] < layers && at[1] < heads ? at : null;
}

/** A label (0-based) as a link and the screen write it (1-based): '0.2' → '1.3'. */
export const headToURL = (label) => {
  const [l, h] = parseHead(label);
  return headLabel(l + 1, h + 1);
};

/**
 * A head of a link (1-based, written as headToURL writes it) as a label (0-based), or null when it is
 * not one of a model of `layers` × `heads`: '1.3' → '0.2'; '0.1', '01.3' → null.
 */
export function headFromURL(text, layers, heads) {
  const at = parseHead(text, layers + 1, heads + 1);
  if (!at || at[0] < 1 || at[1] < 1) return null;
  const label = headLabel(at[0] - 1, at[1] - 1);
  return headToURL(label) === text ? label : null;
}
