// What every page of the site shares: $, its notice bar, its figures' downloads and the writing of its
// state into the address bar's hash, and its button that copies the address. (Their markup:
// web/shared/head.html, and the nav, the loading status and the notice bar in scripts/pages.mjs.)
import { download } from './downloads.js';

export const $ = (id) => document.getElementById(id);

/**
 * The page's notice bar (#notice, #notice-text and, when the page has one, #notice-close, which
 * clears it). Texts are shown as text, several at once joined by a space, cut at `max` characters;
 * at most `keep` texts at once (the oldest goes), so a page that keeps meeting bad input (a hash
 * rewritten thousands of times) never grows its notice. add(text) shows one more; remove(text) takes
 * one away, remove() all; set(text) shows only that one (set('') clears).
 */
export function noticeBar({ max = 600, keep = 5 } = {}) {
  const box = $('notice'), textEl = $('notice-text'), close = $('notice-close');
  const shown = new Set();
  const show = () => {
    // The newest texts that fit in `max` characters (the oldest go first; the newest alone is cut).
    const all = [...shown];
    let from = all.length - 1, length = all.length ? all[from].length : 0;
    while (from > 0 && length + 1 + all[from - 1].length <= max) length += 1 + all[--from].length;
    const t = all.slice(Math.max(from, 0)).join(' ');
    textEl.textContent = t.length > max ? `${t.slice(0, max - 1)}…` : t;
    box.hidden = shown.size === 0;
  };
  const bar = {
    add(text) {
      const t = String(text);
      shown.delete(t);
      shown.add(t);
      while (shown.size > keep) shown.delete(shown.values().next().value);
      show();
    },
    remove(text) { if (text === undefined) shown.clear(); else shown.delete(text); show(); },
    set(text) { shown.clear(); if (text) bar.add(text); else show(); },
  };
  if (close) close.addEventListener('click', () => bar.remove());
  return bar;
}

/**
 * Downloads each figure's export (its `export` event: SVG or PNG) as `${stem(f)}.${format}`; a failure
 * is told through failed(message). before(f), when given, runs first (false: nothing to download).
 */
export function wireExports(figures, { stem = (f) => f.fileStem(), before = null, failed }) {
  for (const f of figures) {
    f.addEventListener('export', async (ev) => {
      const format = ev.detail.format;
      if (before && before(f) === false) return;
      try {
        download(await f.toBlob(format), `${stem(f)}.${format}`);
      } catch (e) {
        failed(`The download failed: ${e.message}.`);
      }
    });
  }
}

/**
 * Writes the page's state into the hash: hashOf() gives it ('#…', or '' for the defaults: then the
 * address has no hash). write(now): at once, or after `delay` ms (the last of quick changes wins).
 * A hash in the address bar that this page did not write (a link followed, the hash edited: its
 * hashchange is on its way) is not overwritten by a write due from an earlier change. Make it before
 * the page listens to hashchange: its own listener then runs first and takes the new hash as read.
 */
export function hashWriter(hashOf, { delay = 0 } = {}) {
  let timer = 0;
  let known = location.hash;   // the hash this page last wrote or read
  const go = () => {
    if (location.hash !== known) return;
    const raw = hashOf();
    const h = raw && raw !== '#' ? (raw[0] === '#' ? raw : `#${raw}`) : '';
    if (location.hash !== h) history.replaceState(null, '', h || location.pathname + location.search);
    known = location.hash;
  };
  window.addEventListener('hashchange', () => { known = location.hash; });
  return {
    write(now = false) {
      clearTimeout(timer);
      if (now || delay <= 0) go(); else timer = setTimeout(go, delay);
    },
  };
}

/**
 * The "Copy link to this view" button: writes the state into the hash (writeURL()), copies the address
 * and says for `ms` milliseconds whether that worked ('Link copied') or the reader has to do it.
 */
export function copyLinkButton(button, writeURL, { ms = 2000 } = {}) {
  button.addEventListener('click', async () => {
    writeURL();
    try {
      await navigator.clipboard.writeText(location.href);
      button.textContent = 'Link copied';
    } catch {
      button.textContent = 'Copy the address bar';
    }
    setTimeout(() => { button.textContent = 'Copy link to this view'; }, ms);
  });
}
