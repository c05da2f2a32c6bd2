// Formulas, typeset by KaTeX as MathML at build time (scripts/build-web.mjs): the page ships the
// MathML, not KaTeX, and MathML needs neither inline styles (which the page's CSP forbids) nor fonts.
// 'virtual:formulas' maps each LaTeX string to its MathML; a formula missing from it is shown as text.
import prerendered from 'virtual:formulas';

/** The teaching panels' formulas: [LaTeX, plain-text fallback]. build-web.mjs renders these too. */
export const TEACHING = {
  scaling: ['\\operatorname{Var}(q^\\top k) = \\sum_{i=1}^{d} \\operatorname{Var}(q_i k_i) = d, \\qquad \\operatorname{Var}\\!\\left(\\frac{q^\\top k}{\\sqrt{d}}\\right) = 1',
    'Var(q·k) = d,  Var(q·k / √d) = 1'],
  cosine: ['q^\\top k = \\lVert q\\rVert\\,\\lVert k\\rVert\\cos\\theta \\qquad \\cos\\theta = \\frac{q^\\top k}{\\lVert q\\rVert\\,\\lVert k\\rVert}',
    'q·k = ‖q‖ ‖k‖ cos θ'],
  idw: ['w_j = \\frac{e^{-\\log(\\varepsilon + \\lVert q-k_j\\rVert^p)}}{\\sum_l e^{-\\log(\\varepsilon + \\lVert q-k_l\\rVert^p)}} = \\frac{1/(\\varepsilon + \\lVert q-k_j\\rVert^p)}{\\sum_l 1/(\\varepsilon + \\lVert q-k_l\\rVert^p)}',
    'w_j = (1/(ε + ‖q−k_j‖^p)) / Σ_l 1/(ε + ‖q−k_l‖^p)'],
  convex: ['o = \\sum_j w_j v_j, \\quad w_j \\ge 0, \\quad \\sum_j w_j = 1',
    'o = Σ_j w_j v_j,  w_j ≥ 0,  Σ_j w_j = 1'],
  softmax: ['w_{ij} = \\frac{\\exp(s_{ij}/\\tau)}{\\sum_l \\exp(s_{il}/\\tau)}',
    'w_ij = exp(s_ij/τ) / Σ_l exp(s_il/τ)'],
};

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
  renderLatex(el, latex, text);
}
