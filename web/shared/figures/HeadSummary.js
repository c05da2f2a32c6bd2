// The heads summarised: the mean and the max over heads of every weight (two matrices), and each
// head's entropy — per query row (how spread that word's attention is) and its mean over the rows
// (from the module's headSummaries kernel), with each head's largest weight and mean row maximum.
// The numbers download as CSV or JSON; the picture as PNG or SVG.
import { interpolateViridis, interpolateCividis } from 'd3-scale-chromatic';
import { Figure, appendParts, matrixPanelParts, setTokenText, labelWidth, fmt, matrixImage, colourTable, lookup, luminance } from './base.js';
import { csvCell, csvNumber } from './export.js';
import { headClass } from './heads.js';

const viridis = colourTable(interpolateViridis);
const cividis = colourTable(interpolateCividis);
const MAT = 200;   // px of a matrix's longer side
const ECELL_W = 48, ECELL_H = 16;
/** Above this many (head, row) entropies, they are one image (a pixel per cell, drawn at the cells'
 * size without smoothing) instead of a rect and a number each: 10 heads × 64 rows were 1,920
 * elements rewritten on every change. The numbers then show on hover and are in the CSV/JSON. */
export const ENTROPY_TEXT_MAX = 256;

export class HeadSummary extends Figure {
  constructor(slot) {
    super(slot, {
      id: 'headsum',
      title: 'Heads summarised',
      dataFormats: ['csv', 'json'],
      caption: '',
    });
    this.addPlot('headsum');
    this.gMats = this.svg.append('g').attr('class', 'hs-mats');
    this.gEnt = this.svg.append('g').attr('class', 'hs-entropy');
    // The value under the pointer when the rows' entropies are an image (fixed to the viewport, so it
    // works in a Shadow DOM too).
    this.tooltip = this.root.append('div').attr('class', 'tooltip fixed').attr('role', 'tooltip').attr('hidden', '').node();
  }

  /*
   * setData(d), d: { qTokens, kTokens, nq, nk, heads, mean: Float32Array [nq, nk], max: Float32Array [nq, nk],
   *   rowEntropy: Float32Array [heads, nq] (nats), perHead: { entropy, max, meanMax } (Float32Array
   *   [heads] each, from scope.headSummaries), masked(i, j) }
   */

  draw() {
    const d = this.data;
    if (!d) return;
    const { nq, nk, heads } = d;
    const rowLab = labelWidth(d.qTokens, 10), colLab = labelWidth(d.kTokens, 10);
    const cell = Math.max(2, Math.min(18, Math.floor(MAT / Math.max(nq, nk))));
    const mw = nk * cell, mh = nq * cell;
    const top = 34 + colLab;
    const showLabels = cell >= 9;
    const mats = [
      { key: 'mean', title: 'Mean over heads', m: d.mean },
      { key: 'max', title: 'Max over heads', m: d.max },
    ];
    let x = 4;
    for (const M of mats) {
      let hi = 0;
      for (const v of M.m) if (v > hi) hi = v;
      M.hi = hi;
      M.x = x;
      x += (showLabels ? rowLab : 0) + mw + 24;
    }
    const entX = x + 8;
    const maxEntropy = Math.log(nk);
    const eTop = 34 + 18;
    const eRows = nq + 3;   // rows, then the mean (kernel), largest weight, mean row maximum
    const lineLabels = [...d.qTokens, { text: 'mean' }, { text: 'largest weight' }, { text: 'mean row max' }];
    const eLab = labelWidth(lineLabels, 14);
    const eW = Math.max(eLab + heads * ECELL_W, 250);
    const W = entX + eW + 8;
    const H = Math.max(top + mh + 10, eTop + eRows * ECELL_H + 10);
    this.setSize(W, H);

    this.gMats.selectAll('g.hs-mat').data(mats, (M) => M.key).join((enter) => {
      // panel-back: under the picture, in the theme's masked colour (the picture's masked cells are transparent).
      const g = appendParts(enter.append('g').attr('class', (M) => `hs-mat hs-${M.key}`),
        ['text.chart-title', 'text.panel-sub', 'rect.panel-back', 'image.panel-img', 'rect.panel-frame', 'g.row-labels', 'g.col-labels']);
      return matrixPanelParts(g);
    })
      .attr('transform', (M) => `translate(${M.x},0)`)
      .each(function (M) {
        const g = this;
        const ox = showLabels ? rowLab : 0;
        g.querySelector('.chart-title').textContent = M.title;
        g.querySelector('.panel-sub').textContent = `colour 0 to ${fmt(M.hi)}`;
        const img = g.querySelector('.panel-img');
        const scale = M.hi > 0 ? 1 / M.hi : 1;
        img.setAttribute('x', ox); img.setAttribute('y', top); img.setAttribute('width', mw); img.setAttribute('height', mh);
        img.setAttribute('href', matrixImage(M.m, nq, nk, (v, i, j) => (d.masked(i, j) ? null : lookup(viridis, v * scale))));
        const back = g.querySelector('.panel-back');
        back.setAttribute('x', ox); back.setAttribute('y', top); back.setAttribute('width', mw); back.setAttribute('height', mh);
        const frame = g.querySelector('.panel-frame');
        frame.setAttribute('x', ox - 1); frame.setAttribute('y', top - 1);
        frame.setAttribute('width', mw + 2); frame.setAttribute('height', mh + 2);
        labels(g.querySelector('.row-labels'), showLabels ? d.qTokens : [], (t, k) => [ox - 4, top + k * cell + cell / 2, 0], 'end');
        labels(g.querySelector('.col-labels'), showLabels ? d.kTokens : [], (t, k) => [ox + k * cell + cell / 2, top - 4, -60], 'start');
      });

    // Entropy: one column per head, one line per query word; the last three lines per head.
    const g = this.gEnt.attr('transform', `translate(${entX},0)`);
    g.selectAll('text.chart-title').data([0]).join('text').attr('class', 'chart-title').attr('y', 12)
      .text('Entropy of each row, per head (nats)');
    g.selectAll('text.panel-sub').data([0]).join('text').attr('class', 'panel-sub').attr('y', 26)
      .text(`0: all on one key · ${fmt(maxEntropy)} = ln ${nk}: uniform`);
    g.selectAll('text.head-name').data(Array.from({ length: heads }, (_, h) => h)).join('text')
      .attr('class', (h) => `head-name ${heads > 1 ? headClass(h) : ''}`)
      .attr('x', (h) => eLab + h * ECELL_W + ECELL_W / 2).attr('y', eTop - 5).attr('text-anchor', 'middle')
      .text((h) => `head ${h + 1}`);
    labels(g.selectAll('g.row-labels').data([0]).join('g').attr('class', 'row-labels').node(), lineLabels,
      (t, k) => [eLab - 4, eTop + k * ECELL_H + ECELL_H / 2 - 1 + (k >= nq ? 4 : 0), 0], 'end', 14);
    const asImage = heads * nq > ENTROPY_TEXT_MAX;
    const cells = [];
    for (let h = 0; h < heads; h++) {
      if (!asImage) for (let i = 0; i < nq; i++) cells.push({ h, i, v: d.rowEntropy[h * nq + i], kind: 'row' });
      cells.push({ h, i: nq, v: d.perHead.entropy[h], kind: 'mean' });
      cells.push({ h, i: nq + 1, v: d.perHead.max[h], kind: 'max' });
      cells.push({ h, i: nq + 2, v: d.perHead.meanMax[h], kind: 'meanmax' });
    }
    const ent = g.selectAll('g.ecell').data(cells).join((enter) => {
      const c = enter.append('g').attr('class', 'ecell');
      c.append('rect');
      c.append('text').attr('text-anchor', 'middle').attr('dominant-baseline', 'central');
      return c;
    }).attr('transform', (c) => `translate(${eLab + c.h * ECELL_W},${eTop + c.i * ECELL_H + (c.kind === 'row' ? 0 : 4)})`);
    ent.select('rect').attr('width', ECELL_W - 2).attr('height', ECELL_H - 2)
      .attr('class', (c) => (c.kind === 'row' ? 'ecell-bg' : 'ecell-bg summary'))
      .attr('fill', (c) => (c.kind === 'row' ? rgb(lookup(cividis, maxEntropy > 0 ? c.v / maxEntropy : 0)) : null));
    ent.select('text').attr('x', ECELL_W / 2 - 1).attr('y', ECELL_H / 2 - 1)
      .attr('class', (c) => {
        const kind = { row: 'row-entropy', mean: 'head-mean-entropy', max: 'head-max-weight', meanmax: 'head-mean-row-max' }[c.kind];
        if (c.kind !== 'row') return `ecell-value ${kind}`;
        return `ecell-value ${kind} ${luminance(lookup(cividis, maxEntropy > 0 ? c.v / maxEntropy : 0)) > 0.35 ? 'dark' : 'light'}`;
      })
      .text((c) => fmt(c.v));
    this.drawEntropyImage(asImage, g, eLab, eTop, maxEntropy);

    this.svg.attr('role', 'img').attr('aria-label', `Heads summarised: mean and max over ${heads} head${heads === 1 ? '' : 's'} of ${nq} by ${nk} weights; mean entropy per head ${Array.from(d.perHead.entropy, (e) => fmt(e)).join(', ')} nats.`);
    this.captionEl.text((heads > 1
      ? `Left: each weight averaged over the ${heads} heads (rows still sum to 1) and its largest value over the heads. Right: the entropy −Σ a·ln a of every query word's row in each head — low when a word looks at one key, ln ${nk} = ${fmt(maxEntropy)} when it looks at all alike — with its mean over the rows, the head's largest weight and its mean row maximum (from the module's head-summary kernel).`
      : `With one head, the mean and the max over heads are that head's weights; choose 2 to 10 heads to compare them. Right: the entropy −Σ a·ln a of every query word's row — low when a word looks at one key, ln ${nk} = ${fmt(maxEntropy)} when it looks at all alike — with its mean, the largest weight and the mean row maximum (from the module's head-summary kernel).`)
      + (asImage ? ` With ${heads} heads of ${nq} rows, the rows' entropies are colours only: hover a cell for its value; the CSV and JSON hold them all.` : ''));
  }

  /**
   * The rows' entropies as one image (ENTROPY_TEXT_MAX): pixel (h, i) is head h's row i, in cividis
   * from 0 to ln nk, drawn at the cells' size; a path in the panel's colour keeps the gaps between
   * cells. Hovering a cell names it and its value (the image's <title>). asImage false: removes it.
   */
  drawEntropyImage(asImage, g, eLab, eTop, maxEntropy) {
    const d = this.data;
    const { nq, heads } = d;
    if (!asImage) {
      g.selectAll('image.entropy-img, path.entropy-gaps').remove();
      return;
    }
    const img = g.selectAll('image.entropy-img').data([0]).join((enter) => {
      const e = enter.append('image').attr('class', 'entropy-img').attr('preserveAspectRatio', 'none')
        .attr('image-rendering', 'pixelated');
      e.append('title');
      return e;
    });
    const gaps = g.selectAll('path.entropy-gaps').data([0]).join('path').attr('class', 'entropy-gaps');
    // [nq rows, heads columns]: the transpose of rowEntropy [heads, nq].
    const byRow = new Float32Array(nq * heads);
    for (let h = 0; h < heads; h++) for (let i = 0; i < nq; i++) byRow[i * heads + h] = d.rowEntropy[h * nq + i];
    const scale = maxEntropy > 0 ? 1 / maxEntropy : 0;
    img.attr('x', eLab).attr('y', eTop).attr('width', heads * ECELL_W).attr('height', nq * ECELL_H)
      .attr('data-rows', nq).attr('data-cols', heads).attr('data-hi', maxEntropy)
      .attr('href', matrixImage(byRow, nq, heads, (v) => lookup(cividis, v * scale)));
    let path = '';
    for (let h = 1; h <= heads; h++) path += `M${eLab + h * ECELL_W - 1},${eTop}v${nq * ECELL_H}`;
    for (let i = 1; i <= nq; i++) path += `M${eLab},${eTop + i * ECELL_H - 1}h${heads * ECELL_W}`;
    gaps.attr('d', path);
    img.select('title').text(`The entropy of each query word's row (${nq} rows) in each of ${heads} heads: hover a cell for its value.`);
    const tip = this.tooltip;
    img.on('pointermove', (ev) => {
      const box = ev.currentTarget.getBoundingClientRect();
      const h = Math.min(heads - 1, Math.floor(((ev.clientX - box.left) / box.width) * heads));
      const i = Math.min(nq - 1, Math.floor(((ev.clientY - box.top) / box.height) * nq));
      if (h < 0 || i < 0) return;
      tip.textContent = '';
      const doc = tip.ownerDocument;
      const head = doc.createElement('div');
      head.className = 'tip-head';
      head.textContent = `${d.qTokens[i].text} (row ${i + 1}), head ${h + 1}`;
      const body = doc.createElement('div');
      body.className = 'tip-body';
      body.textContent = `entropy ${fmt(d.rowEntropy[h * nq + i], 4)} nats`;
      tip.append(head, body);
      tip.hidden = false;
      const win = doc.defaultView;
      let x = ev.clientX + 14;
      if (x + tip.offsetWidth > win.innerWidth - 8) x = Math.max(8, ev.clientX - tip.offsetWidth - 14);
      tip.style.left = `${x}px`;
      tip.style.top = `${ev.clientY + 14}px`;
    }).on('pointerleave', () => { tip.hidden = true; });
  }

  /** Long form: what (mean, max, entropy, mean_entropy, max_weight, mean_row_max), head, query, key, value. */
  dataCSV() {
    const d = this.data;
    const lines = ['what,head,query_index,query_token,key_index,key_token,value'];
    if (!d) return lines.join('\n') + '\n';
    const q = (i) => csvCell(d.qTokens[i].text), k = (j) => csvCell(d.kTokens[j].text);
    for (const what of ['mean', 'max']) {
      for (let i = 0; i < d.nq; i++) for (let j = 0; j < d.nk; j++) lines.push([what, '', i, q(i), j, k(j), csvNumber(d[what][i * d.nk + j])].join(','));
    }
    for (let h = 0; h < d.heads; h++) for (let i = 0; i < d.nq; i++) lines.push(['entropy', h, i, q(i), '', '', csvNumber(d.rowEntropy[h * d.nq + i])].join(','));
    for (const [what, a] of [['mean_entropy', d.perHead.entropy], ['max_weight', d.perHead.max], ['mean_row_max', d.perHead.meanMax]]) {
      for (let h = 0; h < d.heads; h++) lines.push([what, h, '', '', '', '', csvNumber(a[h])].join(','));
    }
    return lines.join('\n') + '\n';
  }

  dataJSON() {
    const d = this.data;
    const rows = (a, n, m) => Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * m, (i + 1) * m)));
    return JSON.stringify({
      generator: 'attnscope web demo',
      queryTokens: d.qTokens.map((t) => t.text), keyTokens: d.kTokens.map((t) => t.text),
      heads: d.heads, nq: d.nq, nk: d.nk, units: 'entropy in nats',
      mean: rows(d.mean, d.nq, d.nk), max: rows(d.max, d.nq, d.nk),
      rowEntropy: rows(d.rowEntropy, d.heads, d.nq),
      meanEntropy: Array.from(d.perHead.entropy), maxWeight: Array.from(d.perHead.max), meanRowMax: Array.from(d.perHead.meanMax),
    }, null, 1) + '\n';
  }
}

function rgb(c) {
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

/** One <text class="token-label"> per token under `parent`, at place(t, k) = [x, y, rotation]. */
function labels(parent, tokens, place, anchor, max = 10) {
  const doc = parent.ownerDocument, NS = parent.namespaceURI;
  while (parent.childNodes.length > tokens.length) parent.lastChild.remove();
  while (parent.childNodes.length < tokens.length) {
    const t = doc.createElementNS(NS, 'text');
    t.setAttribute('class', 'token-label');
    t.setAttribute('dominant-baseline', 'central');
    parent.appendChild(t);
  }
  tokens.forEach((tok, k) => {
    const el = parent.childNodes[k];
    const [x, y, r] = place(tok, k);
    el.setAttribute('text-anchor', anchor);
    el.setAttribute('transform', `translate(${x},${y})${r ? ` rotate(${r})` : ''}`);
    setTokenText({ each: (fn) => fn.call(el, tok) }, (t) => t, max);
  });
}
