// The formulas the figures show, typeset once by KaTeX as MathML at build time, and the esbuild plugin
// that serves them as 'virtual:formulas' (see web/formulas.js): used by the demo's build
// (build-web.mjs) and the element's (build-element.mjs). Pages then ship MathML, not KaTeX.
import katex from 'katex';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function formulas() {
  // The scoring functions' LaTeX comes from the one manifest in src/attnscope/score.hpp (the same table
  // the module's scoreFunctions is built from); the teaching panels' from web/formulas.js.
  function manifestLatex() {
    const src = readFileSync(join(root, 'src/attnscope/score.hpp'), 'utf8');
    const block = src.slice(src.indexOf('#define ATTNSCOPE_SCORES'), src.indexOf('#define ATTNSCOPE_SCORE_ENUM'))
      .replace(/\\\s*\n/g, ' ');
    const strings = [];
    // X(id, "name", "formula", "latex", "source"): the 3rd quoted string of each entry.
    for (const entry of block.split(/\bX\(/).slice(1)) {
      const quoted = [...entry.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((q) => q[1].replace(/\\(.)/g, '$1'));
      if (quoted.length >= 4) strings.push(quoted[2]);
    }
    return strings;
  }
  const { TEACHING } = await import(pathToFileURL(join(root, 'web/formula-data.js')).href);
  const latexList = [...manifestLatex(), ...Object.values(TEACHING).map(([latex]) => latex)];
  const rendered = {};
  for (const latex of latexList) {
    try {
      rendered[latex] = katex.renderToString(latex, { output: 'mathml', throwOnError: true, displayMode: false });
    } catch (e) {
      console.warn(`build-web: KaTeX could not typeset ${JSON.stringify(latex)}: ${e.message}; the page shows it as text`);
    }
  }
  for (const [latex, html] of Object.entries(rendered)) {
    if (/\sstyle=/.test(html)) throw new Error(`build-web: KaTeX output for ${latex} has an inline style, which the page's CSP blocks`);
  }

  const formulasPlugin = {
    name: 'formulas',
    setup(b) {
      b.onResolve({ filter: /^virtual:formulas$/ }, () => ({ path: 'formulas', namespace: 'virtual' }));
      b.onLoad({ filter: /.*/, namespace: 'virtual' }, () => ({ contents: JSON.stringify(rendered), loader: 'json' }));
    },
  };
  return { plugin: formulasPlugin, rendered, latexList };
}
