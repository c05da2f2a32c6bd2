// The trained model's attention in every layer and head: one small matrix per (layer, head), layers
// down, heads across (one row per layer at any width: the panels shrink rather than wrap), labelled
// "layer L, head H" (1-based on screen). Click a panel, or move with the
// arrow keys and press Enter, to open that head large ('pick' event { key: 'L.H' }, 0-based as the
// API). Its numbers download as JSON (every head's matrix, with the tokens).
import { SmallMultiples } from './SmallMultiples.js';
import { fmt } from './base.js';
import { parseHead } from '../head-label.js';
import { ownScore, rescored } from '../compute/use-lite.js';

/** What the JSON exports say of their head labels (the page writes heads from 1). */
export const HEAD_LABELS = '"L.H": layer L, head H, both counted from 0 as the API counts them; the page writes "layer L+1, head H+1"';

export class ModelHeads extends SmallMultiples {
  constructor(slot) {
    super(slot, {
      id: 'model-heads',
      title: 'Every layer and head of the trained model',
      caption: 'The sentence through the model: one matrix per layer (rows of panels) and head (columns), rows the tokens that look, columns the tokens looked at, each coloured from 0 to its own largest weight. These are the attentions of the model as it runs now: with a head re-scored or knocked out, the heads after it show what changed (a knocked-out head still computes its attention, drawn here; only its output is dropped). Click a head, or move with the arrow keys and press Enter, to open it large. Heads are counted from 1 here; the API, the link and <attn-scope head="…"> count from 0, so layer 1, head 2 is "0.1" there (and in the JSON).',
      dataFormats: ['json'],
    });
    this.panelSize = 96;
    this.fitWidth = true;
    this.keepColumns = true;   // one row per layer at any width: the panels shrink rather than wrap
    this.pickText = 'Open it large below.';
    this.view = null;
    this.gPanels.on('keydown.arrows', (ev) => this.arrow(ev));
  }

  /** v: web/shared/compute/use-lite.js modelViews' result. */
  setData(v) {
    this.view = v;
    this.columns = v.heads;
    const n = v.n, panels = [];
    for (let l = 0; l < v.layers; l++) {
      for (let h = 0; h < v.heads; h++) {
        const key = `${l}.${h}`, k = l * v.heads + h;
        const knocked = v.knock.includes(key);
        const tau = v.tau ?? 1;
        const swapped = key === v.head && rescored(v);
        // "scored by cosine"; with a temperature, shorter so that it fits a panel: "cosine, τ 0.1".
        const scoredBy = `${v.swap || ownScore(v, key)}${tau !== 1 ? `, τ ${tau}` : ''}`;
        const sub = knocked ? 'knocked out'
          : swapped ? (tau !== 1 ? scoredBy : `scored by ${scoredBy}`)
            : v.changed ? `moved ${fmt(v.tv[k], 2)} (TV)` : `d=${v.headDims[l] || ''}`;
        // What a narrow panel (a phone) has room for.
        const short = knocked ? 'knocked out' : swapped ? scoredBy : v.changed ? `TV ${fmt(v.tv[k], 2)}` : sub;
        panels.push({ key, title: `layer ${l + 1}, head ${h + 1}`, subtitle: sub, subtitleShort: short, weights: v.surgery,
          offset: k * n * n, nq: n, nk: n, masked: () => false });
      }
    }
    this.setPanels(panels);
  }

  /** Arrow keys move between panels (and pick the one reached); Enter/Space pick (SmallMultiples). */
  arrow(ev) {
    const v = this.view;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const m = moves[ev.key];
    if (!v || !m) return;
    const at = parseHead(ev.target.__data__ && ev.target.__data__.key) || parseHead(this.current) || [0, 0];
    ev.preventDefault();
    const l = Math.max(0, Math.min(v.layers - 1, at[0] + m[0]));
    const h = Math.max(0, Math.min(v.heads - 1, at[1] + m[1]));
    const key = `${l}.${h}`;
    this.gPanels.selectAll('g.panel').filter((p) => p.key === key).node()?.focus();
    this.emit('pick', { key });
  }

  /** Every head's matrix of the model as it runs now: { model, tokens, n, heads: { 'L.H': number[][] } }. */
  dataJSON() {
    const v = this.view;
    if (!v) return '{}';
    const n = v.n, out = {};
    for (let k = 0; k < v.layers * v.heads; k++) {
      const key = `${Math.floor(k / v.heads)}.${k % v.heads}`;
      out[key] = Array.from({ length: n }, (_, i) => Array.from(v.surgery.subarray((k * n + i) * n, (k * n + i + 1) * n)));
    }
    return JSON.stringify({ model: v.name, labels: HEAD_LABELS, tokens: v.tokens, n, layers: v.layers, heads: v.heads, truncated: v.truncated,
      swap: v.changed && rescored(v) ? { head: v.head, score: v.swap || ownScore(v, v.head), temperature: v.tau ?? 1 } : null,
      knockedOut: v.knock, attentions: out });
  }
}
