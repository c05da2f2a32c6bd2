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
  }

  /**
   * results: [{ info: ScoreInfo, result: AttendResult }] in display order; head: which head;
   * masked(i, j); temperature for the caption.
   */
  setData({ results, head, masked, temperature }) {
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
      + 'Scores have very different ranges (a dot product of word vectors is around 10–50, a cosine lies in [−1, 1]), so one temperature does not suit them all: try τ = 0.1 and τ = 10. Click a panel to make it the current function.');
  }
}
