// Knock-out toggles for the trained model's heads: one checkbox per (layer, head), laid out layers ×
// heads. A knocked-out head's output is zeroed before its layer's output projection; everything after
// it is recomputed. 'knock' event { heads: ['L.H', …] } (0-based, as the API).
import { Figure } from './base.js';
import { parseHead } from '../head-label.js';

export class ModelKnockouts extends Figure {
  constructor(slot) {
    super(slot, {
      id: 'model-knock',
      title: 'Knock heads out',
      caption: 'A knocked-out head\'s output is set to zero before its layer\'s output projection; the model runs on without it. The grid above and the numbers beside show what that changes.',
      exportable: false,
    });
    this.box = this.body.append('div').attr('class', 'knock-grid').attr('role', 'group').attr('aria-label', 'Knock heads out');
    this.summary = this.body.append('p').attr('class', 'knock-summary');
    this.shape = '';
    this.knock = [];
  }

  setData(v) {
    const shape = `${v.layers}x${v.heads}`;
    if (shape !== this.shape) {
      // A table, layers down and heads across; each checkbox named "knock out layer L, head H".
      this.shape = shape;
      const box = this.box.node(), doc = box.ownerDocument;
      box.textContent = '';
      const table = doc.createElement('table');
      const head = table.createTHead().insertRow();
      head.appendChild(doc.createElement('td'));
      for (let h = 0; h < v.heads; h++) {
        const th = doc.createElement('th');
        th.scope = 'col';
        th.textContent = `head ${h + 1}`;
        head.appendChild(th);
      }
      const body = table.createTBody();
      for (let l = 0; l < v.layers; l++) {
        const tr = body.insertRow();
        const th = doc.createElement('th');
        th.scope = 'row';
        th.textContent = `layer ${l + 1}`;
        tr.appendChild(th);
        for (let h = 0; h < v.heads; h++) {
          const cb = doc.createElement('input');
          cb.type = 'checkbox';
          cb.value = `${l}.${h}`;
          cb.setAttribute('aria-label', `Knock out layer ${l + 1}, head ${h + 1}`);
          cb.addEventListener('change', () => {
            const on = [...box.querySelectorAll('input:checked')].map((c) => c.value);
            this.emit('knock', { heads: on });
          });
          tr.insertCell().appendChild(cb);
        }
      }
      box.appendChild(table);
    }
    this.knock = v.knock;
  }

  draw() {
    for (const cb of this.box.node().querySelectorAll('input')) cb.checked = this.knock.includes(cb.value);
    const names = this.knock.map((k) => { const [l, h] = parseHead(k); return `layer ${l + 1}, head ${h + 1}`; });
    this.summary.text(names.length ? `Knocked out: ${names.join('; ')}.` : 'No head knocked out.');
  }
}
