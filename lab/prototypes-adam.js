// Adam (Kingma & Ba 2015), for Lab part 3's classifier: one moment pair per parameter array, bias
// corrected. Pure JS, no DOM. The parameters are updated in place (Float32Array or Float64Array).

export class Adam {
  /**
   * @param {ArrayLike<number>[]} params  the parameter arrays, in the order step() gets their gradients
   * @param {{ learningRate?: number, beta1?: number, beta2?: number, epsilon?: number }} [o]
   */
  constructor(params, { learningRate = 0.05, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8 } = {}) {
    if (!(learningRate > 0 && Number.isFinite(learningRate))) throw new RangeError(`learningRate: expected a positive number, got ${learningRate}`);
    this.params = params;
    this.lr = learningRate;
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.epsilon = epsilon;
    this.m = params.map((p) => new Float64Array(p.length));
    this.v = params.map((p) => new Float64Array(p.length));
    this.t = 0;
  }

  /** One update: p ← p − lr · m̂ / (√v̂ + ε), with grads[i] the gradient of params[i]. */
  step(grads) {
    if (grads.length !== this.params.length) throw new RangeError(`grads: expected ${this.params.length} arrays, got ${grads.length}`);
    this.t++;
    const { beta1: b1, beta2: b2, epsilon: eps, lr } = this;
    const c1 = 1 - b1 ** this.t, c2 = 1 - b2 ** this.t;
    for (let k = 0; k < this.params.length; k++) {
      const p = this.params[k], g = grads[k], m = this.m[k], v = this.v[k];
      if (g.length !== p.length) throw new RangeError(`grads[${k}]: expected ${p.length} numbers, got ${g.length}`);
      for (let i = 0; i < p.length; i++) {
        m[i] = b1 * m[i] + (1 - b1) * g[i];
        v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
        p[i] -= (lr * (m[i] / c1)) / (Math.sqrt(v[i] / c2) + eps);
      }
    }
  }
}
