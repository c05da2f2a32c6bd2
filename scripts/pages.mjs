// The site's pages (dist/web/), one entry each. A page is one folder, web/pages/<room>/, holding its
// HTML, its script, its module worker and its style sheet when it has them, and the modules only it
// uses; what several pages use is in web/shared/ (tests/js/layers.test.mjs keeps the imports pointing
// one way). An entry names the page's folder (room), its files in that folder (html is also its
// address: every file is built to the top of dist/web/ under its own name), its name in the nav, the
// vocabulary files it loads (`vocabulary`: its loading status then shows their download), and `ready`: a selector that shows the page has loaded and drawn (default
// body.ready), for the tests that open every page.
// The rest of an entry is what the build writes at the top of the page ({{top}}, topHTML below), so the
// page's HTML holds only what is its own: `sharedStyles`, the style sheets of web/shared/ it links
// besides style.css (which web/shared/head.html links for every page), before its own `style`;
// `bodyClass`, its <body>'s class; `skip`, its skip link [target, text]; `headerClass`, a class of its
// header besides `top`; and `notice`, its notice bar's kind ('dismissible': the reader can close it;
// default 'plain': the page clears it itself).
// scripts/build-web.mjs bundles and writes the pages and generates each one's top, nav, loading
// status ({{status}}) and notice bar ({{notice}}) from this list; scripts/offline-manifest.mjs saves every page's code on the first visit of any of them, and the
// vocabulary when a page that loads it is visited; the tests that visit or count every page read it
// (tests/e2e/axe, offline, tests/js/builds). A new page is its folder and one entry here.
export const PAGES = [
  { room: 'demo', html: 'index.html', script: 'demo.js', worker: 'demo-worker.js', nav: 'Demo',
    vocabulary: ['glove-first.bin', 'glove-50k.bin'],   // the first plots from the 10,000 words (and the examples'), then the 50,000
    skip: ['#views', 'Skip to the plots'], headerClass: 'demo-top', notice: 'dismissible' },
  { room: 'lab', html: 'lab.html', script: 'lab.js', worker: 'lab-worker.js', nav: 'Lab: train a head', vocabulary: ['glove-50k.bin'],
    ready: '#status[data-ready="true"]', sharedStyles: ['lab.css'], bodyClass: 'lab' },
  { room: 'lab-prototypes', html: 'lab-prototypes.html', script: 'lab-prototypes.js', worker: 'lab-prototypes-worker.js',
    style: 'lab-prototypes.css', nav: 'Lab, part 3: keys as prototypes', sharedStyles: ['lab.css'], bodyClass: 'lab lab-prototypes' },
  { room: 'transformer', html: 'transformer.html', script: 'transformer.js', worker: 'transformer-worker.js', style: 'transformer.css',
    nav: 'Train a transformer', ready: '#status[data-ready="true"]', sharedStyles: ['lab.css'], bodyClass: 'lab transformer' },
  { room: 'imported-attention', html: 'model.html', script: 'model.js', worker: 'model-worker.js', style: 'model.css',
    nav: 'Your model\'s attention', ready: 'body.model-ready', bodyClass: 'model-page',
    skip: ['#grid-section', 'Skip to the layers × heads grid'], notice: 'dismissible' },
];

/** The folder of the pages (web/pages/) and of what they share (web/shared/), from the repository's root. */
export const PAGES_DIR = 'web/pages';
export const SHARED_DIR = 'web/shared';

/** A file of a page's folder, from the repository's root: roomFile(page, page.script) → 'web/pages/demo/demo.js'. */
export const roomFile = (page, file) => `${PAGES_DIR}/${page.room}/${file}`;

/** The files a page's entry names (html, script, worker, style), as they are built into dist/web/. */
export const pageOutputs = (page) => [page.html, page.script, page.worker, page.style].filter(Boolean);

const escapeHTML = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The top of every page ({{top}}, on a line of its own after the page's own lines of its <head>: its
 * description, title, licence links): the page's style sheets (its entry's sharedStyles, then its
 * style) and its module script, `</head>`, the <body> (bodyClass), its skip link (skip) and its header
 * (class top, and headerClass) with the nav. The page goes on with its header's own content: its h1 and
 * tagline, its lede.
 */
export function topHTML(page) {
  return [
    ...[...(page.sharedStyles ?? []), page.style].filter(Boolean).map((f) => `<link rel="stylesheet" href="${f}">`),
    `<script type="module" src="${page.script}"></script>`,
    '</head>',
    page.bodyClass ? `<body class="${page.bodyClass}">` : '<body>',
    ...(page.skip ? [`<a class="skip" href="${page.skip[0]}">${escapeHTML(page.skip[1])}</a>`] : []),
    `<header class="${['top', page.headerClass].filter(Boolean).join(' ')}">`,
    `  ${navHTML(page.html)}`,
  ].join('\n');
}

/**
 * The end of a header that ends with the loading status and the notice bar ({{main}}, on a line of its
 * own after the header's own content), and the start of <main>: the lab pages'. A page whose header
 * places them otherwise (the demo's notice is below its header; the model page's busy bar and warning
 * stand around its notice) writes {{status}}, {{notice}}, `</header>` and `<main>` itself.
 */
export const MAIN = ['  {{status}}', '  {{notice}}', '</header>', '<main>'].join('\n');

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
 * A row of figure slots ({{row ID ID.CLASS …}}, on a line of its own): a <div class="row"> (laid out
 * by web/shared/style.css) of one empty <div id="ID" class="figure-slot"> per word, in order, with the
 * word's .CLASSes added (the demo's wide, lines and side). The page's script draws each figure into
 * the slot of its id; a slot of its own, or a row that needs more than ids and classes (the demo's
 * first row, whose large heatmap starts hidden), is written out. Returns null for a word that is not
 * an id with classes.
 */
export function rowHTML(words) {
  const slots = words.map((w) => /^([a-z][\w-]*)((?:\.[a-z][\w-]*)*)$/.exec(w));
  if (!slots.length || slots.some((m) => !m)) return null;
  return ['<div class="row">',
    ...slots.map(([, id, classes]) => `  <div id="${id}" class="${['figure-slot', ...classes.split('.').filter(Boolean)].join(' ')}"></div>`),
    '</div>'].join('\n');
}

/** The kinds of notice bar an entry's `notice` may name; the first is the default. */
export const NOTICES = ['plain', 'dismissible'];

/**
 * The notice bar every page has ({{notice}}; web/shared/page.js noticeBar), of its entry's kind: plain,
 * which the page clears itself, or dismissible, which the reader can also dismiss (#notice-close).
 */
export function noticeHTML(page) {
  if ((page.notice ?? NOTICES[0]) !== 'dismissible') return '<div id="notice" class="notice" role="alert" hidden><span id="notice-text"></span></div>';
  return ['<div id="notice" class="notice" role="alert" hidden>',
    '  <span id="notice-text"></span>',
    '  <button type="button" id="notice-close" class="linkish" aria-label="Dismiss this notice">dismiss</button>',
    '</div>'].join('\n');
}
