// Every scoring function side by side for the same sentences, head, temperature and mask: the only
// thing that changes between the panels is the score. Picking one makes it the current score.
import { SmallMultiples } from './SmallMultiples.js';
import { fmt, meanEntropy } from './base.js';

export class ScoreComparison extends SmallMultiples {
  constructor(slot) {
    super(slot, {
      id: 'compare',
      title: 'Every scoring function, same input',
      caption: '',
    });
    this.columns = 9;        // set by setData: as many as fit one row of 9, else two even rows
    this.panelSize = 108;
    // One colour scale for every panel: a near-uniform head (cosine at τ = 1: weights ≈ 1/n) is dark
    // beside a peaked one, not as bright (each to its own largest made them look alike).
    this.sharedScale = true;
  }

  /**
   * results: [{ info: ScoreInfo, result: AttendResult }] in display order; head: which head;
   * masked(i, j); temperature for the caption; tokens: { rows, cols } token texts (labels), or null.
   */
  setData({ results, head, masked, temperature, tokens = null }) {
    this.tokenLabels = tokens;   // { rows, cols }: the query's and the keys' token texts
    const panels = results.map(({ info, result: r }) => ({
      key: info.name,
      title: info.name,
      subtitle: `entropy ${fmt(meanEntropy(r.stats, head, r.nq), 2)}`,
      weights: r.weights, offset: head * r.nq * r.nk, nq: r.nq, nk: r.nk, masked,
    }));
    this.columns = Math.ceil(panels.length / Math.ceil(panels.length / 9));
    this.setPanels(panels);
    this.captionEl.text(`The same sentences, head, mask and temperature (τ = ${fmt(temperature)}) under each scoring function. `
      + 'Entropy is the mean over rows of −Σ w log w: 0 when each query looks at one key, log(n) when it spreads evenly. '
      + 'Scores have very different ranges (a dot product of word vectors is around 10–50, a cosine lies in [−1, 1]), so one temperature does not suit them all: try τ = 0.1 and τ = 10. Click a panel to make it the current function. '
      + `Every panel is coloured on one scale, from 0 to the largest weight of them all (${fmt(this.sharedTop(results, head, masked))}), so a flat panel is dark; rows are the query's tokens, columns the key tokens.`);
  }

  /** The largest weight of every panel (what the shared scale reaches). */
  sharedTop(results, head, masked) {
    let top = 0;
    for (const { result: r } of results) {
      const o = head * r.nq * r.nk;
      for (let i = 0; i < r.nq; i++) for (let j = 0; j < r.nk; j++) if (!masked(i, j)) top = Math.max(top, r.weights[o + i * r.nk + j]);
    }
    return top;
  }
}
