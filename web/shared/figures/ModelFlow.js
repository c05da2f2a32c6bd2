// The trained model's stack followed from the input to the last layer: attention rollout (Abnar &
// Zuidema 2020; heads averaged, residual·I + (1 − residual)·A, rows renormalised, multiplied through
// the layers) and, when the module has it, attention flow (the max-flow through the same graph) —
// both from the module (scope.rollout, scope.attentionFlow), of the model as it runs now.
import { MatrixPanels } from './MatrixPanels.js';

export class ModelFlow extends MatrixPanels {
  constructor(slot) {
    super(slot, {
      id: 'model-flow',
      title: 'Rollout and attention flow of the stack',
      caption: 'How much each token of the last layer (rows) draws on each input token (columns) through every layer, heads averaged, the residual connection counted as half of each layer (the skip around each attention layer carries every token\'s own vector on, so each layer\'s matrix is 0.5·I + 0.5·A). Rollout multiplies the layers\' matrices; attention flow (Abnar & Zuidema 2020) is the maximum flow through the same graph of layers and tokens.',
      dataFormats: ['json'],
    });
  }

  /** v: modelViews' result. */
  setData(v) {
    const which = v.changed ? 'surgery' : 'original';
    const state = v.changed ? 'with the surgery' : 'as trained';
    const panels = [{ key: 'rollout', title: 'rollout', subtitle: state, values: v.rollout[which], kind: 'weights' }];
    if (v.flow) panels.push({ key: 'flow', title: 'attention flow', subtitle: state, values: v.flow[which], kind: 'weights' });
    if (v.changed) {
      const d = new Float32Array(v.n * v.n), a = v.rollout.original, b = v.rollout.surgery;
      for (let i = 0; i < d.length; i++) d[i] = b[i] - a[i];
      panels.push({ key: 'rolloutDifference', title: 'rollout: difference', subtitle: 'surgery − trained', values: d, kind: 'difference' });
    }
    this.setPanels(panels, v.tokens, v.n);
    this.setCaption(`${v.flow ? '' : 'Attention flow is not in this build of the module (scope.attentionFlow is missing): only rollout is shown. '}How much each token of the last layer (rows) draws on each input token (columns) through every layer, heads averaged, the residual connection counted as ${v.residual} of each layer (the skip around each attention layer carries every token's own vector on, so each layer's matrix is ${v.residual}·I + ${Math.round((1 - v.residual) * 1000) / 1000}·A: a token keeps ${v.residual} of itself). Rollout multiplies the layers' matrices${v.flow ? '; attention flow (Abnar & Zuidema 2020) is the maximum flow through the same graph of layers and tokens' : ''}.`);
  }
}
