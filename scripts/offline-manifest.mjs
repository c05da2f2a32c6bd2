// Writes dist/web/sw.js: web/sw.js with the list of files to save for offline use and their
// SHA-256 filled in, and a version (the cache's name) that is a hash of all of them and of the
// worker's own code, so any change to the page gives a new cache and the old one is deleted.
// Used by scripts/build-web.mjs (and by the offline e2e test, on a copy of dist/web).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every file the page can ask for: all of the folder but source maps, the worker and its kill switch. */
export function offlineFiles(dir) {
  return readdirSync(dir)
    .filter((f) => f !== 'sw.js' && f !== 'sw-kill.js' && !f.endsWith('.map') && statSync(join(dir, f)).isFile())
    .sort();
}

/**
 * Fills the template's two placeholders and writes dir/sw.js.
 * @returns {{ version: string, files: Record<string, string> }}
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
  const version = all.digest('hex').slice(0, 16);
  let out = template;
  for (const [placeholder, value] of [
    ["/* build: VERSION */ 'unbuilt'", JSON.stringify(version)],
    ['/* build: FILES */ {}', JSON.stringify(files, null, 2)],
  ]) {
    if (!out.includes(placeholder)) throw new Error(`offline-manifest: ${templatePath} lacks ${placeholder}`);
    out = out.replace(placeholder, () => value);
  }
  writeFileSync(join(dir, 'sw.js'), out);
  return { version, files };
}
