// One head of the trained model, large: its attention as trained, with the surgery (the head scored by
// the function chosen in "Score this head with …", heads knocked out) and their difference, side by
// side, over the sentence's tokens. The select lists every scoring function of the module's registry
// ('swap' event { name }); the head's own (USE-Lite's: scaled-dot; a saved transformer's: its own per
// head) changes nothing. A saved transformer's heads keep their own τ: no τ menu for it.
import { MatrixPanels } from './MatrixPanels.js';
import { fmt } from './base.js';
import { headBlock, ownScore, rescored } from '../compute/use-lite.js';
import { parseHead } from '../head-label.js';
import { HEAD_LABELS } from './ModelHeads.js';
import { HEAD_TEMPERATURES } from '../temperature.js';

// What the panels show; `own`: how the head scores as trained; `tau`: the temperature's clause, if any.
const CAPTION = (own, tau) => `Left: the head as trained (${own}). Middle: the same head with the surgery: scored by the function chosen above${tau}, on the same trained q and k, and with the heads knocked out below (a head after a knocked-out one sees other inputs). Left and middle share one colour scale, from 0 to the larger of their largest weights, so a flatter head looks darker. Right: middle − left, red where the surgery gives more weight, blue where less, the background where nothing changed, on a scale of ± its largest change. Rows: the tokens that look; columns: the tokens looked at. Point at a cell, or focus the plot and use the arrow keys, for every panel's value there.`;

export class ModelHeadView extends MatrixPanels {
  constructor(slot) {
    super(slot, {
      id: 'model-head',
      title: 'One head, re-scored',
      caption: CAPTION('a scaled dot product of its trained queries and keys', ', at the temperature chosen beside it'),
      dataFormats: ['json'],
    });
    const bar = this.body.insert('div', ':first-child').attr('class', 'model-swap');
    const id = `model-swap-${Math.random().toString(36).slice(2, 8)}`;
    bar.append('label').attr('for', id).text('Score this head with ');
    this.select = bar.append('select').attr('id', id).attr('class', 'model-swap-select')
      .on('change', () => this.emit('swap', { name: this.select.node().value }));
    // Its temperature: a bounded score (cosine, in [−1, 1]) cannot get sharp at the model's τ = 1.
    const tauId = `${id}-tau`;
    this.tauLabel = bar.append('label').attr('for', tauId).text(' at τ ');
    this.tauSelect = bar.append('select').attr('id', tauId).attr('class', 'model-tau-select')
      .on('change', () => this.emit('tau', { tau: Number(this.tauSelect.node().value) }));
    for (const t of HEAD_TEMPERATURES) this.tauSelect.append('option').attr('value', String(t)).text(t === 1 ? '1 (the model\'s own)' : String(t));
    this.names = [];
    this.sharedScale = true;   // as trained and with the surgery compared on one scale
  }

  /** names: every scoring function of the registry, [{ name, formula }]. */
  setScoreNames(list) {
    const key = list.map((s) => s.name).join();
    if (key === this.names.join()) return;
    this.names = list.map((s) => s.name);
    const sel = this.select.node();
    sel.textContent = '';
    for (const s of list) {
      const o = sel.ownerDocument.createElement('option');
      o.value = s.name;
      o.dataset.formula = s.formula || '';
      sel.appendChild(o);
    }
    this.own = null;
  }

  /** Marks the head's own scoring function in the list: "scaled-dot (the model's own)". */
  markOwn(own) {
    if (own === this.own) return;
    this.own = own;
    for (const o of this.select.node().options) o.textContent = o.value === own ? `${o.value} (the model's own)` : `${o.value}${o.dataset.formula ? `   ${o.dataset.formula}` : ''}`;
  }

  /** v: modelViews' result. */
  setData(v) {
    this.view = v;
    const [l, h] = parseHead(v.head) || [0, 0];
    const n = v.n;
    const a = headBlock(v.original, l, h, v.heads, n), b = headBlock(v.surgery, l, h, v.heads, n);
    const d = new Float32Array(n * n);
    for (let i = 0; i < n * n; i++) d[i] = b[i] - a[i];
    const name = `layer ${l + 1}, head ${h + 1}`;
    this.setTitle(`${name}: as trained, with the surgery, and the difference`);
    const tau = v.tau ?? 1;
    const swapped = rescored(v);
    const knocked = v.knock.includes(v.head);
    const own = ownScore(v, v.head);
    this.markOwn(own);
    const fixedTau = v.kind === 'decoder';   // a saved transformer's heads keep their own τ
    this.tauLabel.style('display', fixedTau ? 'none' : null);
    this.tauSelect.style('display', fixedTau ? 'none' : null);
    this.setCaption(CAPTION(fixedTau ? `scored by its own function, ${own}` : 'a scaled dot product of its trained queries and keys', fixedTau ? '' : ', at the temperature chosen beside it'));
    this.setPanels([
      { key: 'original', title: 'as trained', subtitle: own, values: a, kind: 'weights' },
      { key: 'swapped', title: !swapped ? 'with the surgery' : tau !== 1 ? `${v.swap || own} at τ = ${tau}` : `scored by ${v.swap}`, subtitle: knocked ? 'its output knocked out' : (v.changed ? `rows moved ${fmt(v.tv[l * v.heads + h], 2)} (TV)` : 'no surgery: the same'), values: b, kind: 'weights' },
      { key: 'difference', title: 'difference', subtitle: 'surgery − trained', values: d, kind: 'difference' },
    ], v.tokens, n);
    this.select.node().value = v.swap || own;
    this.tauSelect.node().value = String(tau);
  }

  dataJSON() {
    const v = this.view;
    const out = JSON.parse(super.dataJSON());
    return JSON.stringify({ model: v.name, labels: HEAD_LABELS, head: v.head, score: v.swap || ownScore(v, v.head), temperature: v.tau ?? 1, knockedOut: v.knock, ...out });
  }
}
