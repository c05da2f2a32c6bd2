// The demo's token strips: the tokens of a sentence as chips, a listbox whose options select rows (the
// query's) or columns (the keys'). The page (web/pages/demo/demo.js) shows the tokens and keeps the selection.

/**
 * The tokens of a sentence as chips: a listbox whose options select rows (the query's) or columns (the
 * keys'): click, shift-click, ctrl/cmd-click, drag across chips; from the keyboard arrows move,
 * Space toggles, Shift+arrows extend, Escape clears. Rebuilt only when the tokens change, so a drag
 * or the keyboard focus survives the redraw a selection causes.
 */
const chipIndex = new WeakMap();   // chip element → token index
const strips = new WeakMap();      // strip element → { keys: the tokens drawn, count: its count's text, field: 'rows' | 'cols' }
const strip = (el) => { if (!strips.has(el)) strips.set(el, { keys: [], count: '', field: 'rows' }); return strips.get(el); };
const MAX_CHIPS = 160;   // a long document's strip shows its first tokens, then says how many more
export function tokenChips(el, allInfos, total, field, selected) {
  const infos = allInfos.length > MAX_CHIPS ? allInfos.slice(0, MAX_CHIPS) : allInfos;
  const keys = infos.map((t) => `${t.text}\u0001${t.oov ? '?' : t.kind}`);
  const count = (allInfos.length > MAX_CHIPS ? `… and ${(allInfos.length - MAX_CHIPS).toLocaleString('en')} more: ` : '')
    + (total > allInfos.length ? `${allInfos.length} of ${total} tokens (cut)` : `${allInfos.length} token${allInfos.length === 1 ? '' : 's'}`);
  const drawn = strip(el);
  // Only the chips from the first changed token on are rebuilt (typing changes the last few): each
  // new chip costs the next frame its style and layout.
  let same = 0;
  while (same < keys.length && same < drawn.keys.length && keys[same] === drawn.keys[same]) same++;
  if (same < keys.length || same < drawn.keys.length || drawn.count !== count) {
    const hadFocus = el.contains(document.activeElement) ? chipIndex.get(document.activeElement) : undefined;
    while (el.children.length > same) el.lastChild.remove();
    for (let index = same; index < infos.length; index++) {
      const t = infos[index];
      const s = document.createElement('span');
      s.className = t.oov ? 'chip oov' : `chip ${t.kind}`;
      s.setAttribute('role', 'option');
      s.setAttribute('aria-selected', 'false');
      s.tabIndex = -1;
      chipIndex.set(s, index);
      s.textContent = t.text;
      if (t.oov) {
        s.title = 'Not in the vocabulary: this word gets a fixed pseudo-random vector';
        const m = document.createElement('span');
        m.className = 'oov-mark';
        m.textContent = '?';
        m.setAttribute('aria-label', 'not in the vocabulary');
        s.appendChild(m);
      }
      el.appendChild(s);
    }
    const n = document.createElement('span');
    n.className = 'chip-count';
    n.setAttribute('aria-hidden', 'true');
    n.textContent = count;
    el.appendChild(n);
    drawn.keys = keys;
    drawn.count = count;
    if (hadFocus !== undefined && hadFocus >= same && el.children[Math.min(hadFocus, infos.length - 1)]) el.children[Math.min(hadFocus, infos.length - 1)].focus();
  }
  drawn.field = field;
  const set = new Set(selected);
  const chips = el.querySelectorAll('.chip');
  let roving = -1;
  chips.forEach((c, k) => {
    const sel = String(set.has(k));
    if (c.getAttribute('aria-selected') !== sel) c.setAttribute('aria-selected', sel);
    if (c.tabIndex === 0) roving = k;
  });
  if (roving < 0 && chips.length) chips[selected.length ? Math.min(selected[0], chips.length - 1) : 0].tabIndex = 0;
}
export function clearChips(el) {
  el.textContent = '';
  strip(el).keys = [];
  strip(el).count = '';
}
/**
 * Makes strip `el` answer the mouse, touch and keyboard. select(field, index, { shift, toggle, from })
 * is one gesture on a token (as a figure's `select` event); set(field, list) replaces the selection.
 */
export function wireChipStrip(el, { select: selectTokens, set }) {
  const chipAt = (x, y) => {
    const t = document.elementFromPoint(x, y);
    const c = t && t.closest ? t.closest('.chip') : null;
    return c && el.contains(c) ? chipIndex.get(c) : undefined;
  };
  let drag = null, tap = null;
  el.addEventListener('pointerdown', (ev) => {
    const c = ev.target.closest('.chip');
    if (!c || ev.button !== 0) return;
    const index = chipIndex.get(c);
    // A finger on a chip may be the start of a scroll: a touch selects on lifting (a tap), not before.
    if (ev.pointerType === 'touch') { tap = { index, id: ev.pointerId }; return; }
    drag = { last: index };
    roveTo(el, index, false);
    selectTokens(strip(el).field, index, { shift: ev.shiftKey, toggle: ev.ctrlKey || ev.metaKey });
    ev.preventDefault();
  });
  el.addEventListener('pointermove', (ev) => {
    if (!drag || !(ev.buttons & 1)) return;
    const index = chipAt(ev.clientX, ev.clientY);
    if (index === undefined || index === drag.last) return;
    drag.last = index;
    selectTokens(strip(el).field, index, { shift: true });
  });
  el.addEventListener('pointerup', (ev) => {
    if (tap && tap.id === ev.pointerId) selectTokens(strip(el).field, tap.index, {});
    tap = null;
  });
  for (const type of ['pointerup', 'pointercancel']) window.addEventListener(type, () => { drag = null; tap = null; });
  el.addEventListener('keydown', (ev) => {
    const c = ev.target.closest('.chip');
    if (!c) return;
    const index = chipIndex.get(c), n = el.querySelectorAll('.chip').length;
    const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1, Home: -n, End: n }[ev.key];
    if (step !== undefined) {
      const to = Math.max(0, Math.min(n - 1, index + step));
      roveTo(el, to, true);
      if (ev.shiftKey) selectTokens(strip(el).field, to, { shift: true, from: index });
    } else if (ev.key === ' ' || ev.key === 'Enter') {
      selectTokens(strip(el).field, index, { toggle: true });
    } else if (ev.key === 'Escape') {
      set(strip(el).field, []);
    } else if (ev.key === 'a' && (ev.ctrlKey || ev.metaKey)) {
      set(strip(el).field, Array.from({ length: n }, (_, k) => k));
    } else return;
    ev.preventDefault();
  });
}
/** Moves the strip's one tab stop to chip `index` (and the focus, when `focus`). */
function roveTo(el, index, focus) {
  el.querySelectorAll('.chip').forEach((c, k) => { c.tabIndex = k === index ? 0 : -1; });
  if (focus) el.querySelectorAll('.chip')[index].focus();
}
