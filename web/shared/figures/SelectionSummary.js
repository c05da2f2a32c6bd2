// Several tokens at once: for the selected query rows, their summed and mean attention over the keys
// ("what these words look at, together"); for the selected key columns, how much each query gives
// them ("who attends to these words"). One head (the heatmap's). Each block is a bar per token with
// its sum and mean written beside it; the numbers also download as CSV or JSON.
import { Figure, setTokenText, labelWidth, fmt, shortLabel } from './base.js';
import { csvCell, csvNumber } from './export.js';
import { rowSummary, colSummary } from '../selection.js';

const ROW = 17;        // px per token line
const BAR = 150;       // px of the longest bar
const NUM = 150;       // px for "Σ 0.0123  mean 0.00617"
const GAP = 36;        // px between the two blocks
const TOP = 40;        // a long document's block lists only the tokens with the largest values

export class SelectionSummary extends Figure {
  constructor(slot) {
    super(slot, {
      id: 'selection',
      title: 'Selected words',
      dataFormats: ['csv', 'json'],
    });
    this.hint = this.body.insert('p', ':first-child').attr('class', 'selection-hint hint');
    this.addPlot('selection-summary');
    this.blocks = this.svg.append('g');
    this.clear = this.tools.insert('button', ':first-child').attr('type', 'button').attr('class', 'clear-selection')
      .text('Clear selection')
      .on('click', () => this.emit('clear', {}));
    this.summary = null;
  }

  /**
   * d: { qTokens, kTokens, nq, nk, weights: Float32Array [nq, nk] (one head), head, heads,
   *   rows: number[], cols: number[] (already within the token counts) }
   */
  setData(d) {
    this.data = d;
    this.summary = {
      rows: d.rows.length ? rowSummary(d.weights, d.nq, d.nk, d.rows) : null,
      cols: d.cols.length ? colSummary(d.weights, d.nq, d.nk, d.cols) : null,
    };
  }

  hasSelection() {
    return !!(this.data && (this.data.rows.length || this.data.cols.length));
  }

  draw() {
    const d = this.data;
    if (!d) return;
    const has = this.hasSelection();
    this.root.classed('is-empty', !has);
    this.clear.attr('hidden', has && !d.fromCell ? null : '');
    const headText = d.heads > 1 ? ` (head ${d.head + 1} of ${d.heads})` : '';
    this.titleEl.text(d.fromCell ? `The open cell’s row and column${headText}` : `Selected words${headText}`);
    const how = 'Select query words (rows) to see their summed and mean attention over the keys, or key words (columns) to see who attends to them: click a word in a token strip or a label of the heatmap; shift-click, drag, or Shift+arrow keys for several; ctrl/⌘-click adds or removes one.';
    this.hint.text(!has ? how : d.fromCell ? `Nothing selected, so this is the open cell’s row and column. ${how}`
      : 'Rows sum to 1, so the mean over selected rows is again a distribution over the keys; a query’s sum over selected columns is the share of its attention they get.');
    if (!has) {
      this.svg.attr('hidden', '');
      this.captionEl.text('');
      return;
    }
    this.svg.attr('hidden', null);
    const blocks = [];
    if (this.summary.rows) {
      blocks.push({ key: 'rows', tokens: d.kTokens, sum: this.summary.rows.sum, mean: this.summary.rows.mean, bar: 'mean',
        title: `${names(d.qTokens, d.rows)} look at:`, sub: `sum and mean over ${d.rows.length} row${d.rows.length === 1 ? '' : 's'}, per key` });
    }
    if (this.summary.cols) {
      blocks.push({ key: 'cols', tokens: d.qTokens, sum: this.summary.cols.sum, mean: this.summary.cols.mean, bar: 'sum',
        title: `Who attends to ${names(d.kTokens, d.cols)}:`, sub: `sum and mean over ${d.cols.length} column${d.cols.length === 1 ? '' : 's'}, per query` });
    }
    let x = 4, H = 0;
    for (const b of blocks) {
      b.lab = labelWidth(b.tokens);
      b.x = x;
      b.w = Math.max(b.lab + BAR + NUM, 7 * Math.min(48, Math.max(b.title.length, b.sub.length)));
      x += b.w + GAP;
      // A long document: only the TOP tokens with the largest values, in descending order (the CSV and
      // JSON keep every token); the subtitle says so.
      const n = b.tokens.length;
      b.order = Array.from({ length: n }, (_, k) => k);
      if (n > TOP) {
        const v = b[b.bar];
        b.order = b.order.sort((p, q) => v[q] - v[p] || p - q).slice(0, TOP);
        b.sub += ` (the ${TOP} of ${n.toLocaleString('en')} with the most; CSV/JSON: all)`;
      }
      H = Math.max(H, 40 + b.order.length * ROW + 4);
    }
    this.setSize(x - GAP + 4, H);
    this.blocks.selectAll('g.sel-block').data(blocks, (b) => b.key).join((enter) => {
      const g = enter.append('g').attr('class', (b) => `sel-block sel-${b.key}`);
      g.append('text').attr('class', 'sel-title').attr('y', 12);
      g.append('text').attr('class', 'sel-sub').attr('y', 27);
      g.append('g').attr('class', 'sel-lines');
      return g;
    })
      .attr('transform', (b) => `translate(${b.x},0)`)
      .each(function (b) {
        const g = this;
        g.querySelector('.sel-title').textContent = shortLabel(b.title, 60);
        g.querySelector('.sel-sub').textContent = b.sub;
        let max = 0;
        for (const v of b[b.bar]) if (v > max) max = v;
        const scale = max > 0 ? BAR / max : 0;
        const lines = b.order.map((k, at) => ({ t: b.tokens[k], k, at, sum: b.sum[k], mean: b.mean[k], v: b[b.bar][k] }));
        const rows = selectAll(g.querySelector('.sel-lines'), lines);
        rows.forEach(({ node, line }) => {
          node.setAttribute('transform', `translate(0,${40 + line.at * ROW})`);
          const label = node.querySelector('.token-label');
          label.setAttribute('x', b.lab - 6);
          setTokenText({ each: (fn) => fn.call(label, line.t) }, (t) => t);
          const bar = node.querySelector('.sel-bar');
          bar.setAttribute('x', b.lab);
          bar.setAttribute('width', Math.max(0, line.v * scale));
          const sum = node.querySelector('.sum-value');
          sum.setAttribute('x', b.lab + BAR + 8);
          sum.textContent = `Σ ${fmt(line.sum)}`;
          const mean = node.querySelector('.mean-value');
          mean.setAttribute('x', b.lab + BAR + 68);
          mean.textContent = `mean ${fmt(line.mean)}`;
        });
      });
    const what = blocks.map((b) => b.title).join(' ');
    this.svg.attr('role', 'img').attr('aria-label', `Summary of the selected words. ${what}`);
    const side = (k) => (blocks.length > 1 ? (k === 0 ? 'Left, bars' : 'Right, bars') : 'Bars');
    this.captionEl.text(blocks.map((b, k) => (b.key === 'rows'
      ? `${side(k)}: the mean weight the selected query words give each key.`
      : `${side(k)}: the share of each query word’s attention that goes to the selected keys.`)).join(' '));
  }

  /** The numbers as CSV: block (rows: over keys; cols: over queries), token index and text, sum, mean. */
  dataCSV() {
    const d = this.data;
    const lines = ['selection,selected,index,token,sum,mean'];
    const add = (kind, selected, tokens, s) => {
      if (!s) return;
      for (let k = 0; k < tokens.length; k++) {
        lines.push([kind, csvCell(selected.join(' ')), k, csvCell(tokens[k].text), csvNumber(s.sum[k]), csvNumber(s.mean[k])].join(','));
      }
    };
    if (d) {
      add('rows', d.rows, d.kTokens, this.summary.rows);
      add('cols', d.cols, d.qTokens, this.summary.cols);
    }
    return lines.join('\n') + '\n';
  }

  dataJSON() {
    const d = this.data;
    const arr = (a) => Array.from(a, (x) => (Number.isFinite(x) ? x : String(x)));
    const out = { generator: 'attnscope web demo', head: d ? d.head : 0, heads: d ? d.heads : 0, fromOpenCell: !!(d && d.fromCell), rows: null, cols: null };
    if (d && this.summary.rows) {
      out.rows = { selected: d.rows, selectedTokens: d.rows.map((i) => d.qTokens[i].text), keyTokens: d.kTokens.map((t) => t.text),
        sum: arr(this.summary.rows.sum), mean: arr(this.summary.rows.mean) };
    }
    if (d && this.summary.cols) {
      out.cols = { selected: d.cols, selectedTokens: d.cols.map((j) => d.kTokens[j].text), queryTokens: d.qTokens.map((t) => t.text),
        sum: arr(this.summary.cols.sum), mean: arr(this.summary.cols.mean) };
    }
    return JSON.stringify(out, null, 1) + '\n';
  }

  fileStem() {
    return 'attnscope-selection';
  }
}

/** "cat", "sat" and 3 more: the selected tokens' words, for a title. */
function names(tokens, list) {
  const words = list.slice(0, 3).map((i) => `“${shortLabel(tokens[i].text, 12)}”`);
  return list.length > 3 ? `${words.join(', ')} and ${list.length - 3} more` : words.join(list.length === 2 ? ' and ' : ', ');
}

/** Keeps one <g class="sel-line"> per line under `parent` (made once, reused), in order. */
function selectAll(parent, lines) {
  const doc = parent.ownerDocument, NS = parent.namespaceURI;
  while (parent.childNodes.length > lines.length) parent.lastChild.remove();
  while (parent.childNodes.length < lines.length) {
    const g = doc.createElementNS(NS, 'g');
    g.setAttribute('class', 'sel-line');
    for (const [tag, cls] of [['text', 'token-label'], ['rect', 'sel-bar'], ['text', 'sum-value'], ['text', 'mean-value']]) {
      const el = doc.createElementNS(NS, tag);
      el.setAttribute('class', cls);
      if (tag === 'text') { el.setAttribute('y', ROW / 2); el.setAttribute('dominant-baseline', 'central'); }
      else { el.setAttribute('y', 3); el.setAttribute('height', ROW - 5); }
      if (cls === 'token-label') el.setAttribute('text-anchor', 'end');
      g.appendChild(el);
    }
    parent.appendChild(g);
  }
  return lines.map((line, k) => ({ node: parent.childNodes[k], line }));
}
