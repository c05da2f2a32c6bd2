// The site's pages (dist/web/), one entry each: its HTML, its script (bundled to the same name), its
// module worker and its style sheet when it has them (all in web/), its name in the nav, and whether it
// loads the vocabulary. scripts/build-web.mjs bundles and writes the pages and generates each one's
// nav ({{nav}}) from this list; scripts/offline-manifest.mjs saves every page's code on the first
// visit of any of them, and the vocabulary when a page that loads it is visited. A new page is its HTML, its script and one entry here.
export const PAGES = [
  { html: 'index.html', script: 'demo.js', worker: 'demo-worker.js', style: 'style.css', nav: 'Demo', vocabulary: true },
  { html: 'lab.html', script: 'lab.js', worker: 'lab-worker.js', style: 'lab.css', nav: 'Lab: train a head', vocabulary: true },
  { html: 'lab-prototypes.html', script: 'lab-prototypes.js', worker: 'lab-prototypes-worker.js', style: 'lab-prototypes.css',
    nav: 'Lab, part 3: keys as prototypes' },
  { html: 'model.html', script: 'model.js', worker: 'model-worker.js', style: 'model.css', nav: 'Your model\'s attention' },
];

const escapeHTML = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The nav every page shows ({{nav}}): a link to each page, the current one marked. */
export function navHTML(current) {
  const links = PAGES.map((p) => `<a href="${p.html}"${p.html === current ? ' aria-current="page"' : ''}>${escapeHTML(p.nav)}</a>`);
  return `<nav class="pages" aria-label="Pages">${links.join(' · ')}</nav>`;
}
