// The site's pages (dist/web/), one entry each. A page is one folder, web/pages/<room>/, holding its
// HTML, its script, its module worker and its style sheet when it has them, and the modules only it
// uses; what several pages use is in web/shared/ (tests/js/layers.test.mjs keeps the imports pointing
// one way). An entry names the page's folder (room), its files in that folder (html is also its
// address: every file is built to the top of dist/web/ under its own name), its name in the nav, the
// vocabulary files it loads (`vocabulary`: its loading status then shows their download), and `ready`: a selector that shows the page has loaded and drawn (default
// body.ready), for the tests that open every page.
// scripts/build-web.mjs bundles and writes the pages and generates each one's nav ({{nav}}), loading
// status ({{status}}) and notice bar ({{notice}}, {{dismissibleNotice}}) from this list; scripts/offline-manifest.mjs saves every page's code on the first visit of any of them, and the
// vocabulary when a page that loads it is visited; the tests that visit or count every page read it
// (tests/e2e/axe, offline, tests/js/builds). A new page is its folder and one entry here.
export const PAGES = [
  { room: 'demo', html: 'index.html', script: 'demo.js', worker: 'demo-worker.js', nav: 'Demo',
    vocabulary: ['glove-first.bin', 'glove-50k.bin'] },   // the first plots from the 10,000 words (and the examples'), then the 50,000
  { room: 'lab', html: 'lab.html', script: 'lab.js', worker: 'lab-worker.js', nav: 'Lab: train a head', vocabulary: ['glove-50k.bin'],
    ready: '#status[data-ready="true"]' },
  { room: 'lab-prototypes', html: 'lab-prototypes.html', script: 'lab-prototypes.js', worker: 'lab-prototypes-worker.js',
    style: 'lab-prototypes.css', nav: 'Lab, part 3: keys as prototypes' },
  { room: 'transformer', html: 'transformer.html', script: 'transformer.js', worker: 'transformer-worker.js', style: 'transformer.css',
    nav: 'Train a transformer', ready: '#status[data-ready="true"]' },
  { room: 'imported-attention', html: 'model.html', script: 'model.js', worker: 'model-worker.js', style: 'model.css',
    nav: 'Your model\'s attention', ready: 'body.model-ready' },
];

/** The folder of the pages (web/pages/) and of what they share (web/shared/), from the repository's root. */
export const PAGES_DIR = 'web/pages';
export const SHARED_DIR = 'web/shared';

/** A file of a page's folder, from the repository's root: roomFile(page, page.script) → 'web/pages/demo/demo.js'. */
export const roomFile = (page, file) => `${PAGES_DIR}/${page.room}/${file}`;

/** The files a page's entry names (html, script, worker, style), as they are built into dist/web/. */
export const pageOutputs = (page) => [page.html, page.script, page.worker, page.style].filter(Boolean);

const escapeHTML = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The nav every page shows ({{nav}}): a link to each page, the current one marked. */
export function navHTML(current) {
  const links = PAGES.map((p) => `<a href="${p.html}"${p.html === current ? ' aria-current="page"' : ''}>${escapeHTML(p.nav)}</a>`);
  return `<nav class="pages" aria-label="Pages">${links.join(' · ')}</nav>`;
}

/**
 * The loading status every page shows ({{status}}): what it loads (the vocabulary too when its entry
 * names one) and, for the vocabulary, a bar of its download. Its script writes #load-text as it goes.
 */
export function statusHTML(page) {
  const text = page.vocabulary ? 'Loading the kernels and the vocabulary…' : 'Loading the kernels…';
  const progress = page.vocabulary ? '\n  <progress id="load-progress" max="1" aria-label="Vocabulary download"></progress>' : '';
  return `<div id="status" class="status" role="status" aria-live="polite"><span id="load-text">${text}</span>${progress}</div>`;
}

/**
 * The notice bar every page has (web/shared/page.js noticeBar): {{notice}}, which the page clears
 * itself, or {{dismissibleNotice}}, which the reader can also dismiss (#notice-close).
 */
export function noticeHTML({ dismissible }) {
  if (!dismissible) return '<div id="notice" class="notice" role="alert" hidden><span id="notice-text"></span></div>';
  return ['<div id="notice" class="notice" role="alert" hidden>',
    '  <span id="notice-text"></span>',
    '  <button type="button" id="notice-close" class="linkish" aria-label="Dismiss this notice">dismiss</button>',
    '</div>'].join('\n');
}
