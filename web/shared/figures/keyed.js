// Elements kept across redraws, one per numeric key, with the attributes last written to each kept in
// JS: a redraw computes every attribute as a fresh draw would, but writes only those that differ from
// what it wrote before (never reading the DOM back). The short-text plots (heatmap, line view) redraw on
// every keystroke; with a keystroke that keeps the shape, only the changed values reach the DOM, and one
// that adds a token creates only the new elements (issue 11).

/** One element and what was last written to it: attributes (name → string, or null: removed) and its text. */
export class Kept {
  constructor(node) {
    this.node = node;
    this.attrs = Object.create(null);
    this.text = undefined;
  }

  /** Writes attribute `name` = String(value) (null or undefined: removes it) if it differs from the last write. */
  attr(name, value) {
    const v = value === null || value === undefined ? null : String(value);
    if (this.attrs[name] === v) return;
    this.attrs[name] = v;
    if (v === null) this.node.removeAttribute(name); else this.node.setAttribute(name, v);
  }

  /** Writes the element's text if it differs from the last write. */
  setText(text) {
    if (this.text === text) return;
    this.text = text;
    this.node.textContent = text;
  }
}

/**
 * More than any token index (texts are cut at 2,000 tokens): keys made as i × KEY_SIDE + j (cells), or
 * (h × KEY_SIDE + i) × KEY_SIDE + j (lines), are unique and ascend with (h, i, j).
 */
export const KEY_SIDE = 4096;

/**
 * Elements under `parent` (which holds nothing else), one per key, in ascending key order in the DOM.
 * sync(keys) keeps the elements of keys still wanted (same nodes), removes the others and creates the
 * new ones (make(key) returns the node and may add listeners and children) in their place.
 */
export class KeyedNodes {
  constructor(parent, make) {
    this.parent = parent;
    this.make = make;
    this.keys = [];
    this.items = [];
  }

  /** keys: ascending numbers. Returns the Kept items, in the keys' order. */
  sync(keys) {
    const oldKeys = this.keys, old = this.items;
    if (keys.length === oldKeys.length) {
      let same = true;
      for (let t = 0; t < keys.length; t++) if (keys[t] !== oldKeys[t]) { same = false; break; }
      if (same) return old;
    }
    const out = new Array(keys.length);
    // From the end, so each new element goes before the (already placed) element after it. The kept
    // elements are already in ascending order among themselves, so none of them moves.
    let a = keys.length - 1, b = oldKeys.length - 1, next = null;
    while (a >= 0 || b >= 0) {
      const kn = a >= 0 ? keys[a] : -Infinity, ko = b >= 0 ? oldKeys[b] : -Infinity;
      if (ko > kn) { old[b].node.remove(); b--; }
      else if (ko === kn) { out[a] = old[b]; next = old[b].node; a--; b--; }
      else {
        const item = new Kept(this.make(kn));
        this.parent.insertBefore(item.node, next);
        out[a] = item; next = item.node; a--;
      }
    }
    this.keys = keys.slice();
    this.items = out;
    return out;
  }

  /** Removes every element. */
  clear() { this.sync([]); }
}

/** Writes a token into an SVG <text> as setTokenText does (the word, and a "?" tspan when out of the vocabulary), if changed. */
export function keptTokenText(item, word, oov) {
  const text = `${word}\u0000${oov ? 1 : 0}`;
  if (item.text === text) return;
  item.text = text;
  const node = item.node, doc = node.ownerDocument, ns = node.namespaceURI;
  node.textContent = '';
  const w = doc.createElementNS(ns, 'tspan');
  w.textContent = word;
  node.appendChild(w);
  if (oov) {
    const mark = doc.createElementNS(ns, 'tspan');
    mark.setAttribute('class', 'oov-mark');
    mark.textContent = '?';
    node.appendChild(mark);
  }
}

/** range(n): [0, 1, …, n - 1] (the keys of elements indexed by position). */
export function range(n) {
  const a = new Array(n);
  for (let t = 0; t < n; t++) a[t] = t;
  return a;
}
