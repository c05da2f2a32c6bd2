// Writes dist/web/sw.js: web/shared/sw.js with the list of files to save for offline use and their
// SHA-256 filled in, which of them each page needs, and a version (the cache's name) that is a hash
// of all of them and of the worker's own code, so any change to the page gives a new cache and the
// old one is deleted. Used by scripts/build-web.mjs (and by the offline e2e test, on a copy of dist/web).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PAGES } from './pages.mjs';

/** The vocabulary files (tens of MB): saved only for the pages that load the vocabulary. */
const VOCABULARY = /^glove-[0-9a-z]+\.bin$/;
/** The pages that load the vocabulary (scripts/pages.mjs); every other page gets by without it. */
export const VOCABULARY_PAGES = PAGES.filter((p) => p.vocabulary).map((p) => p.html);

/**
 * The trained model's file and its licence: not saved with the pages (about 14 MB, fetched only when a
 * visitor chooses the model; saving it with the page would download it on every first visit), but
 * saved by the service worker the first time a page loads them (sw.js MODEL), so they download once.
 */
export const NOT_OFFLINE = /^use-lite\./;

/** Every file the page can ask for: all of the folder but source maps, the worker, its kill switch and NOT_OFFLINE. */
export function offlineFiles(dir) {
  return readdirSync(dir)
    .filter((f) => f !== 'sw.js' && f !== 'sw-kill.js' && !f.endsWith('.map') && !NOT_OFFLINE.test(f) && statSync(join(dir, f)).isFile())
    .sort();
}

/**
 * The files a page of dir needs offline: the page, the scripts and styles its HTML links, every file
 * of dir a script names in a string, bare or as './name' (its workers, the pool's worker, the wasm, the model page's example), followed
 * through the scripts it finds, and each script's .LEGAL.txt; the vocabulary only when `vocabulary` (true: every
 * vocabulary file; a list of names: those)
 * (the module's code names it whether the page loads it or not).
 */
export function pageFiles(dir, page, { vocabulary = false } = {}) {
  const all = new Set(offlineFiles(dir));
  const out = new Set([page]);
  const queue = [page];
  while (queue.length) {
    const f = queue.shift();
    const text = /\.(html|m?js)$/.test(f) ? readFileSync(join(dir, f), 'utf8') : '';
    const refs = f.endsWith('.html')
      ? [...text.matchAll(/<(?:script|link)\b[^>]*?\s(?:src|href)="([^"]+)"/g)].map((m) => m[1])
      : [...text.matchAll(/["'`](?:\.\/)?([\w.-]+\.[a-z]+)["'`]/g)].map((m) => m[1]);
    for (const r of refs) {
      if (!all.has(r) || out.has(r) || VOCABULARY.test(r) || r.endsWith('.html')) continue;
      out.add(r);
      queue.push(r);
    }
    if (all.has(`${f}.LEGAL.txt`)) out.add(`${f}.LEGAL.txt`);
  }
  // true: every vocabulary file; a list: those (a page's `vocabulary` in scripts/pages.mjs).
  if (vocabulary) {
    for (const f of all) if (VOCABULARY.test(f) && (vocabulary === true || vocabulary.includes(f))) out.add(f);
    if (all.has('glove.LICENSE')) out.add('glove.LICENSE');   // the vocabulary's licence goes with it
  }
  return [...out].sort();
}

/**
 * The files the first visit of any page saves: every page's files but the vocabulary (its code:
 * HTML, scripts, styles, wasm, workers, the model page's example), so every page opens offline after
 * one visit. The vocabulary is saved by the pages that load it, when one of them is visited.
 */
export function siteFiles(pages) {
  const out = new Set();
  for (const files of Object.values(pages)) for (const f of files) if (!VOCABULARY.test(f)) out.add(f);
  return [...out].sort();
}

/** Every page of scripts/pages.mjs → the files it needs offline in dir (pageFiles). */
export function offlinePages(dir, vocabularyPages = VOCABULARY_PAGES) {
  const pages = {};
  const all = offlineFiles(dir);
  for (const { html, vocabulary } of PAGES) {
    if (!all.includes(html)) throw new Error(`offline-manifest: ${dir} has no ${html} (scripts/pages.mjs)`);
    pages[html] = pageFiles(dir, html, { vocabulary: vocabularyPages.includes(html) && (Array.isArray(vocabulary) ? vocabulary : true) });
  }
  return pages;
}

/**
 * Fills the template's placeholders and writes dir/sw.js.
 * @returns {{ version: string, files: Record<string, string>, pages: Record<string, string[]>, site: string[], model: Record<string, string> }}
 */
export function writeServiceWorker(dir, templatePath) {
  const template = readFileSync(templatePath, 'utf8');
  const files = {};
  const all = createHash('sha256').update(template);
  for (const f of offlineFiles(dir)) {
    const bytes = readFileSync(join(dir, f));
    files[f] = createHash('sha256').update(bytes).digest('hex');
    all.update(`${f}\0${files[f]}\0`);
  }
  // The trained model's files: saved when a page first loads them (the service worker's fetch), not before.
  const model = {};
  for (const f of readdirSync(dir).filter((f) => NOT_OFFLINE.test(f) && statSync(join(dir, f)).isFile()).sort()) {
    model[f] = createHash('sha256').update(readFileSync(join(dir, f))).digest('hex');
    all.update(`model\0${f}\0${model[f]}\0`);
  }
  const pages = offlinePages(dir);
  const site = siteFiles(pages);
  all.update(JSON.stringify(pages));
  all.update(JSON.stringify(site));
  const version = all.digest('hex').slice(0, 16);
  let out = template;
  for (const [placeholder, value] of [
    ["/* build: VERSION */ 'unbuilt'", JSON.stringify(version)],
    ['/* build: FILES */ {}', JSON.stringify(files, null, 2)],
    ['/* build: PAGES */ {}', JSON.stringify(pages, null, 2)],
    ['/* build: SITE */ []', JSON.stringify(site, null, 2)],
    ['/* build: MODEL */ {}', JSON.stringify(model, null, 2)],
  ]) {
    if (!out.includes(placeholder)) throw new Error(`offline-manifest: ${templatePath} lacks ${placeholder}`);
    out = out.replace(placeholder, () => value);
  }
  writeFileSync(join(dir, 'sw.js'), out);
  return { version, files, pages, site, model };
}
