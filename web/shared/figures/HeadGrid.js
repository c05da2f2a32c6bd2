// One small attention matrix per head, for the current scoring function: how the heads differ.
// Picking a head shows it in the heatmap.
import { SmallMultiples } from './SmallMultiples.js';
import { HEAD_PANEL } from '../compute/images.js';
import { fmt, meanEntropy } from './base.js';
import { headClass } from './heads.js';

export class HeadGrid extends SmallMultiples {
  constructor(slot) {
    super(slot, {
      id: 'heads',
      title: 'Heads',
      caption: 'One matrix per head (rows: queries, columns: keys), each coloured from 0 to its own largest weight. With the identity projection the heads split the 100 dimensions of the word vectors between them; with the random projection each head has its own W_q, W_k, W_v. Click a head to show it in the heatmap; the mark beside its name is its colour in “Who looks at whom”.',
    });
    this.columns = 5;
    this.panelSize = HEAD_PANEL;
  }

  /** d: { nq, nk, heads, weights [heads, nq, nk], stats: { entropy [heads, nq] }, dHead, masked,
   *  headImages? (web/shared/compute/images.js headImages of the same weights and mask) } */
  setData(d) {
    const panels = [];
    for (let h = 0; h < d.heads; h++) {
      panels.push({
        key: h,
        title: `head ${h + 1}`,
        subtitle: `d=${d.dHead[h]} · entropy ${fmt(meanEntropy(d.stats, h, d.nq), 2)}`,
        weights: d.weights, offset: h * d.nq * d.nk, nq: d.nq, nk: d.nk, masked: d.masked,
        mark: d.heads > 1 ? headClass(h) : null,   // the head's colour in the line view
        href: d.headImages ? d.headImages[h] : undefined,
      });
    }
    this.setPanels(panels);
  }
}
