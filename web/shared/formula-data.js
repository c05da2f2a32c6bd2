// The teaching panels' formulas, as data: imported by the page (web/shared/formulas.js) and by
// scripts/build-web.mjs, which typesets them at build time.

/** The teaching panels' formulas: [LaTeX, plain-text fallback]. build-web.mjs renders these too. */
export const TEACHING = {
  scaling: ['\\operatorname{Var}(q^\\top k) = \\sum_{i=1}^{d} \\operatorname{Var}(q_i k_i) = d, \\qquad \\operatorname{Var}\\!\\left(\\frac{q^\\top k}{\\sqrt{d}}\\right) = 1',
    'Var(q·k) = d,  Var(q·k / √d) = 1'],
  cosine: ['q^\\top k = \\lVert q\\rVert\\,\\lVert k\\rVert\\cos\\theta \\qquad \\cos\\theta = \\frac{q^\\top k}{\\lVert q\\rVert\\,\\lVert k\\rVert}',
    'q·k = ‖q‖ ‖k‖ cos θ'],
  idw: ['e^{-\\log(\\varepsilon + r_j^p)} = \\frac{1}{\\varepsilon + r_j^p} \\qquad \\Rightarrow\\; w_j = \\frac{1/(\\varepsilon + r_j^p)}{\\sum_l 1/(\\varepsilon + r_l^p)} \\qquad r_j = \\lVert q - k_j\\rVert',
    'exp(−log(ε + r^p)) = 1/(ε + r^p), so w_j = (1/(ε + r_j^p)) / Σ_l 1/(ε + r_l^p), r_j = ‖q − k_j‖'],
  convex: ['o = \\sum_j w_j v_j, \\quad w_j \\ge 0, \\quad \\sum_j w_j = 1',
    'o = Σ_j w_j v_j,  w_j ≥ 0,  Σ_j w_j = 1'],
  softmax: ['w_{ij} = \\frac{\\exp(s_{ij}/\\tau)}{\\sum_l \\exp(s_{il}/\\tau)}',
    'w_ij = exp(s_ij/τ) / Σ_l exp(s_il/τ)'],
};

/** A teaching formula's equations: the LaTeX split where \qquad sets them apart (each typeset alone). */
export function teachingParts(latex) {
  return latex.split(/\s*\\qquad\s*/);
}
