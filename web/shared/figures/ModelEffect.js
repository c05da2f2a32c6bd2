// What the surgery did, in numbers and in sentences computed from them (web/shared/compute/use-lite.js explain):
// how far the sentence embedding moved (1 − cosine), each head's mean row change, and with a second
// sentence their similarity before and after.
import { Figure, fmt } from './base.js';
import { explain } from '../compute/use-lite.js';

export class ModelEffect extends Figure {
  constructor(slot) {
    super(slot, {
      id: 'model-effect',
      title: 'What the surgery changes',
      caption: 'Distance: 1 − cosine between the sentence embeddings (the model\'s 512 numbers for the sentence) as trained and with the surgery. TV: ½ Σ |a − b| over a row of attention weights, averaged over the rows.',
      exportable: false,
    });
    this.text = this.body.append('div').attr('class', 'model-explain').attr('aria-live', 'polite');
    this.table = this.body.append('dl').attr('class', 'model-numbers');
    this.view = null;
  }

  setData(v) { this.view = v; }

  draw() {
    const v = this.view;
    if (!v) return;
    const t = this.text.node();
    t.textContent = '';
    for (const s of explain(v, fmt)) {
      const p = t.ownerDocument.createElement('p');
      p.textContent = s;
      t.appendChild(p);
    }
    const rows = [['embedding-distance', 'Embedding moved (1 − cosine)', fmt(v.embedding.distance)]];
    if (v.second) {
      rows.push(['similarity-before', 'Similarity of the two sentences, as trained', fmt(v.second.before)]);
      rows.push(['similarity-after', 'Similarity with the surgery', fmt(v.second.after)]);
    }
    rows.push(['tokens', 'Tokens', `${v.n}${v.truncated ? ' (cut at 128)' : ''}`]);
    const dl = this.table.node();
    dl.textContent = '';
    for (const [key, label, value] of rows) {
      const dt = dl.ownerDocument.createElement('dt');
      dt.textContent = label;
      const dd = dl.ownerDocument.createElement('dd');
      dd.textContent = value;
      dd.dataset.measure = key;
      // The unrounded number, for whoever reads the page's numbers (a test, a screen reader's "more").
      dd.dataset.value = String(key === 'embedding-distance' ? v.embedding.distance
        : key === 'similarity-before' ? v.second.before : key === 'similarity-after' ? v.second.after : v.n);
      dl.append(dt, dd);
    }
  }
}
