// What the figures need from the build, for the demo (build-web.mjs) and the <attn-scope> element
// (build-element.mjs): the formulas, typeset once by KaTeX as MathML (pages then ship MathML, not
// KaTeX), and the module's registry of names; an esbuild plugin serves them as 'virtual:formulas'
// (web/shared/formulas.js) and 'virtual:registry' (web/pages/demo/state.js).
import katex from 'katex';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadDistRegistry } from './registry.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** dist: the folder with the built module (its registry names the scores and gives their LaTeX). */
export async function formulas(dist = join(root, 'dist')) {
  // The scoring functions' LaTeX comes from the module's registry (src/attnscope/registry.hpp, read from
  // the built module, the same table scope.scoreFunctions comes from); the teaching panels' from
  // web/shared/formula-data.js.
  const registry = await loadDistRegistry(dist);
  const { TEACHING, teachingParts } = await import(pathToFileURL(join(root, 'web/shared/formula-data.js')).href);
  const latexList = [...registry.scores.map((s) => s.latex), ...new Set(Object.values(TEACHING).flatMap(([latex]) => [latex, ...teachingParts(latex)]))];
  const rendered = {};
  for (const latex of latexList) {
    try {
      rendered[latex] = katex.renderToString(latex, { output: 'mathml', throwOnError: true, displayMode: false });
    } catch (e) {
      console.warn(`formulas: KaTeX could not typeset ${JSON.stringify(latex)}: ${e.message}; the page shows it as text`);
    }
  }
  for (const [latex, html] of Object.entries(rendered)) {
    if (/\sstyle=/.test(html)) throw new Error(`formulas: KaTeX output for ${latex} has an inline style, which the page's CSP blocks`);
  }

  const plugin = {
    name: 'formulas',
    setup(b) {
      b.onResolve({ filter: /^virtual:(formulas|registry)$/ }, (a) => ({ path: a.path.slice('virtual:'.length), namespace: 'virtual' }));
      b.onLoad({ filter: /.*/, namespace: 'virtual' }, (a) => ({
        contents: JSON.stringify(a.path === 'registry' ? registry : rendered), loader: 'json',
      }));
    },
  };
  return { plugin, rendered, latexList, registry };
}
