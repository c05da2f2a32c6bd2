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

/** What a head label may be, for an error message: 'a head “layer.head” …, e.g. “1.2”'. */
export const HEAD_ALLOWED = (layers, heads) => `a head “layer.head” of the model, both counted from 0 as the API counts them (layers 0–${layers - 1}, heads 0–${heads - 1}; “layer 1, head 1” on screen is “0.0”), e.g. “${layers - 1}.${heads - 1}”`;
export const HEAD_LIST_ALLOWED = (layers, heads) => `a list of heads “layer.head” separated by commas, each counted from 0 as the API counts them (layers 0–${layers - 1}, heads 0–${heads - 1}), e.g. “0.1,${layers - 1}.${heads - 1}”, or nothing for no head knocked out`;

/**
 * A list of labels 'L.H,L.H' (0-based; spaces around the commas allowed; '' is none) as sorted, unique
 * labels of a model of `layers` × `heads`, or null when one of them is not a head of it.
 */
export function parseHeadList(text, layers, heads) {
  const t = String(text).trim();
  if (t === '') return [];
  const parts = t.split(/\s*,\s*/);
  if (parts.length > layers * heads * 4) return null;   // bounded: a list this long repeats heads, or is not one
  for (const part of parts) if (!parseHead(part, layers, heads)) return null;
  return [...new Set(parts.map((x) => headLabel(...parseHead(x))))].sort();
}
