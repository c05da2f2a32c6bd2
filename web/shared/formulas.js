// Formulas, typeset by KaTeX as MathML at build time (scripts/build-web.mjs): the page ships the
// MathML, not KaTeX, and MathML needs neither inline styles (which the page's CSP forbids) nor fonts.
// 'virtual:formulas' maps each LaTeX string to its MathML; a formula missing from it is shown as text.
import prerendered from 'virtual:formulas';
import { TEACHING, teachingParts } from './formula-data.js';

export { TEACHING, teachingParts };

/** Puts a formula into el: the build's MathML when there is one, else the plain text. */
export function renderLatex(el, latex, fallback) {
  const html = prerendered[latex];
  if (html) {
    // Trusted markup: produced at build time by KaTeX from the fixed strings above and the module's
    // score table; never from anything a user typed.
    el.innerHTML = html;
    el.classList.remove('plain');
  } else {
    el.textContent = fallback;
    el.classList.add('plain');
  }
}

export function renderTeaching(el, key) {
  const [latex, text] = TEACHING[key];
  const parts = teachingParts(latex);
  if (parts.length === 1 || !parts.every((p) => prerendered[p])) { renderLatex(el, latex, text); return; }
  // Equations set apart by \qquad, each typeset on its own: on a narrow screen the second goes under
  // the first instead of being cut off ("cos θ = -" on a phone).
  el.textContent = '';
  el.classList.add('formula-parts');
  for (const p of parts) {
    const span = el.ownerDocument.createElement('span');
    span.className = 'formula-part';
    renderLatex(span, p, p);
    el.appendChild(span);
  }
}
