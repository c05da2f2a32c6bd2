// What the surgery did, in numbers and in sentences computed from them (web/shared/compute/use-lite.js explain):
// how far the sentence embedding moved (1 − cosine) — a saved decoder's prediction of the next token —,
// each head's mean row change, and with a second sentence their similarity before and after.
import { Figure, fmt } from './base.js';
import { explain } from '../compute/use-lite.js';

const CAPTION = 'Distance: 1 − cosine between the sentence embeddings (the model\'s 512 numbers for the sentence) as trained and with the surgery. TV: ½ Σ |a − b| over a row of attention weights, averaged over the rows.';
const DECODER_CAPTION = 'Next token: the token the model gives the highest probability after the last one, and that probability, as trained and with the surgery. Prediction moved: ½ Σ |p − q| over the two distributions of the next token. TV of a head: ½ Σ |a − b| over a row of its attention weights, averaged over the rows.';

export class ModelEffect extends Figure {
  constructor(slot) {
    super(slot, {
      id: 'model-effect',
      title: 'What the surgery changes',
      caption: CAPTION,
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
    this.setCaption(v.kind === 'decoder' ? DECODER_CAPTION : CAPTION);
    const rows = [];
    if (v.kind === 'decoder') {
      // The next token after the last, as trained and with the surgery (web/shared/compute/saved-model.js).
      const p = v.prediction;
      rows.push(['prediction-before', 'Next token, as trained', `«${p.before.token}» ${fmt(p.before.p)}`, p.before.p]);
      if (v.changed) {
        rows.push(['prediction-after', 'Next token, with the surgery', `«${p.after.token}» ${fmt(p.after.p)}`, p.after.p]);
        rows.push(['prediction-tv', 'Prediction moved (TV)', fmt(p.tv), p.tv]);
      }
    } else {
      rows.push(['embedding-distance', 'Embedding moved (1 − cosine)', fmt(v.embedding.distance), v.embedding.distance]);
    }
    if (v.second) {
      rows.push(['similarity-before', 'Similarity of the two sentences, as trained', fmt(v.second.before), v.second.before]);
      rows.push(['similarity-after', 'Similarity with the surgery', fmt(v.second.after), v.second.after]);
    }
    rows.push(['tokens', 'Tokens', `${v.n}${v.truncated ? ` (cut at ${v.maxTokens})` : ''}`, v.n]);
    const dl = this.table.node();
    dl.textContent = '';
    for (const [key, label, value, exact] of rows) {
      const dt = dl.ownerDocument.createElement('dt');
      dt.textContent = label;
      const dd = dl.ownerDocument.createElement('dd');
      dd.textContent = value;
      dd.dataset.measure = key;
      // The unrounded number, for whoever reads the page's numbers (a test, a screen reader's "more").
      dd.dataset.value = String(exact);
      dl.append(dt, dd);
    }
  }
}
