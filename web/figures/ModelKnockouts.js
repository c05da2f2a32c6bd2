// Knock-out toggles for the trained model's heads: one checkbox per (layer, head), laid out layers ×
// heads. A knocked-out head's output is zeroed before its layer's output projection; everything after
// it is recomputed. 'knock' event { heads: ['L.H', …] } (0-based, as the API).
import { Figure } from './base.js';

export class ModelKnockouts extends Figure {
  constructor(slot) {
    super(slot, {
      id: 'model-knock',
      title: 'Knock heads out',
      caption: 'A knocked-out head\'s output is set to zero before its layer\'s output projection; the model runs on without it. The grid above and the numbers beside show what that changes.',
      exportable: false,
    });
    this.box = this.body.append('div').attr('class', 'knock-grid').attr('role', 'group').attr('aria-label', 'Knock heads out');
    this.shape = '';
    this.knock = [];
  }

  setData(v) {
    const shape = `${v.layers}x${v.heads}`;
    if (shape !== this.shape) {
      this.shape = shape;
      const box = this.box.node();
      box.textContent = '';
      box.style.setProperty('--heads', v.heads);
      for (let l = 0; l < v.layers; l++) {
        for (let h = 0; h < v.heads; h++) {
          const label = box.ownerDocument.createElement('label');
          const cb = box.ownerDocument.createElement('input');
          cb.type = 'checkbox';
          cb.value = `${l}.${h}`;
          cb.addEventListener('change', () => {
            const on = [...box.querySelectorAll('input:checked')].map((c) => c.value);
            this.emit('knock', { heads: on });
          });
          label.appendChild(cb);
          label.appendChild(box.ownerDocument.createTextNode(` layer ${l + 1}, head ${h + 1}`));
          box.appendChild(label);
        }
      }
    }
    this.knock = v.knock;
  }

  draw() {
    for (const cb of this.box.node().querySelectorAll('input')) cb.checked = this.knock.includes(cb.value);
  }
}
