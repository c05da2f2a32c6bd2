// Grid semantics for a matrix drawn in SVG (the heatmap's cells, the model page's layers × heads), for
// screen readers and other assistive technology. The picture stays what it is (rects, one image, text
// labels), hidden from them; beside it, in the same <svg>, a group of shapes that are never drawn
// carries the ARIA grid: a header row of column headers, then rows of a row header and grid cells, each
// shape exactly over the cell (or label) it stands for, so a magnifier following the focus finds the
// right place; a header holds its label's text (its name, as in an HTML table), a cell is named by its
// aria-label (its value).
// The <svg> is the grid (role=grid, one tab stop); the arrow keys move its cursor and
// aria-activedescendant names the cell under it.
//
// The DOM stays bounded whatever the matrix: only a window of rows around the cursor is in it (at most
// MAX_CELLS cells), and aria-rowcount / aria-rowindex (and the column counterparts) tell assistive
// technology the whole matrix's size and where each row present sits in it. A short sentence's matrix
// (up to 22 × 22 tokens) is there whole, so it can also be read as a table in a screen reader's browse mode.
import { SVG_NS } from './base.js';
import { Kept } from './keyed.js';

/** At most this many grid cells in the DOM (a window of whole rows around the cursor's row). */
export const MAX_CELLS = 512;

export class AriaGrid {
  /**
   * @param {SVGSVGElement} svg the plot: it becomes the grid (role=grid; give it tabindex and a label).
   *   Everything already in it is hidden from assistive technology (the drawing); call hideDrawing()
   *   again after adding shapes later.
   */
  constructor(svg) {
    this.svg = svg;
    this.keptSvg = new Kept(svg);
    this.keptSvg.attr('role', 'grid');
    this.doc = svg.ownerDocument;
    this.group = this.doc.createElementNS(SVG_NS, 'g');
    this.group.setAttribute('class', 'aria-grid aria-only');
    this.hideDrawing();
    svg.appendChild(this.group);
    this.header = null;   // { row: Kept, cells: Kept[] }
    this.rows = [];       // [{ row: Kept, head: Kept, cells: Kept[] }]
  }

  /** Hides every child of the svg but the grid's own group from assistive technology. */
  hideDrawing() {
    for (const el of this.svg.children) if (el !== this.group) el.setAttribute('aria-hidden', 'true');
  }

  /**
   * Writes the grid for the matrix as it is drawn now (only what changed reaches the DOM).
   * @param {object} g
   *   id: a prefix for the cells' ids (unique in the document or shadow root)
   *   rows, cols: the matrix's size
   *   active: [i, j] the cursor's cell (the window of rows is placed around it)
   *   colHeader(j) → { label, x, y, w, h } | absent: no header row
   *   rowHeader(i) → { label, x, y, w, h } | absent: no row headers
   *   cell(i, j) → { label, x, y, w, h, selected? }
   *   rowBase, colBase, rowCount, colCount: when the figure draws a block of a larger matrix (rows ×
   *     cols from row rowBase and column colBase of rowCount × colCount), where the block sits in it
   */
  update({ id, rows, cols, active, colHeader, rowHeader, cell, rowBase = 0, colBase = 0, rowCount = rows, colCount = cols }) {
    const k = this.keptSvg;
    const hasRowHeads = !!rowHeader, hasHeader = !!colHeader;
    const c0 = (hasRowHeads ? 2 : 1) + colBase;   // aria-colindex of the first grid cell
    k.attr('aria-rowcount', rowCount + (hasHeader ? 1 : 0));
    k.attr('aria-colcount', colCount + (hasRowHeads ? 1 : 0));
    const [ai, aj] = [Math.max(0, Math.min(rows - 1, active[0])), Math.max(0, Math.min(cols - 1, active[1]))];
    // The window: whole rows, as many as MAX_CELLS allows, around the cursor's row.
    const span = Math.max(1, Math.min(rows, Math.floor(MAX_CELLS / Math.max(1, cols))));
    const r0 = Math.max(0, Math.min(rows - span, ai - Math.floor(span / 2)));
    const r1 = Math.min(rows, r0 + span);

    if (hasHeader) {
      if (!this.header) {
        this.header = { row: this.make('g', this.group, this.group.firstChild), cells: [] };
        this.header.row.attr('role', 'row');
        this.header.row.attr('aria-rowindex', 1);
      }
      this.fillHeaders(this.header.row, this.header.cells, cols, (j, e) => {
        e.attr('role', 'columnheader');
        e.attr('aria-colindex', c0 + j);
        this.placeHeader(e, colHeader(j));
      });
    } else if (this.header) {
      this.header.row.node.remove();
      this.header = null;
    }

    const want = r1 - r0;
    while (this.rows.length > want) this.rows.pop().row.node.remove();
    while (this.rows.length < want) {
      const row = this.make('g', this.group);
      row.attr('role', 'row');
      this.rows.push({ row, head: null, cells: [] });
    }
    for (let t = 0; t < want; t++) {
      const i = r0 + t, R = this.rows[t];
      R.row.attr('aria-rowindex', rowBase + i + 1 + (hasHeader ? 1 : 0));
      if (hasRowHeads) {
        if (!R.head) R.head = this.makeHeader(R.row.node, R.row.node.firstChild);
        R.head.attr('role', 'rowheader');
        R.head.attr('aria-colindex', 1);
        this.placeHeader(R.head, rowHeader(i));
      } else if (R.head) { R.head.node.remove(); R.head = null; }
      this.fill(R.row, R.cells, cols, (j, e) => {
        const c = cell(i, j);
        e.attr('role', 'gridcell');
        e.attr('id', `${id}-${rowBase + i}-${colBase + j}`);
        e.attr('aria-colindex', c0 + j);
        e.attr('aria-selected', c.selected === undefined ? null : String(!!c.selected));
        this.place(e, c);
      });
    }
    this.activeId = `${id}-${rowBase + ai}-${colBase + aj}`;
    k.attr('aria-activedescendant', this.activeId);
  }

  /** The grid cell element under the cursor (after update). */
  activeCell() {
    return this.activeId ? this.svg.querySelector(`[id="${this.activeId}"]`) : null;
  }

  /** Removes the grid's rows (no matrix drawn). */
  clear() {
    for (const R of this.rows) R.row.node.remove();
    this.rows = [];
    if (this.header) { this.header.row.node.remove(); this.header = null; }
    this.keptSvg.attr('aria-activedescendant', null);
    this.activeId = null;
  }

  make(tag, parent, before = null) {
    const node = this.doc.createElementNS(SVG_NS, tag);
    parent.insertBefore(node, before);
    return new Kept(node);
  }

  /**
   * A header: a <g> holding a shape over the label it stands for and the label's text (not drawn: the
   * label is drawn by the figure), so that the header's name is its content, as in an HTML table.
   */
  makeHeader(parent, before = null) {
    const g = this.make('g', parent, before);
    g.rect = this.make('rect', g.node);
    g.label = this.make('text', g.node);
    return g;
  }

  placeHeader(e, { label, x, y, w, h }) {
    this.place(e.rect, { label: null, x, y, w, h });
    e.label.attr('x', x); e.label.attr('y', y + h / 2);
    e.label.setText(label);
  }

  /** n headers in `row`, each written by write(j, kept). */
  fillHeaders(row, list, n, write) {
    while (list.length > n) list.pop().node.remove();
    while (list.length < n) list.push(this.makeHeader(row.node));
    for (let j = 0; j < n; j++) write(j, list[j]);
  }

  /** n rects in `row` (after its row header), each written by write(j, kept). */
  fill(row, list, n, write) {
    while (list.length > n) list.pop().node.remove();
    while (list.length < n) list.push(this.make('rect', row.node));
    for (let j = 0; j < n; j++) write(j, list[j]);
  }

  place(e, { label, x, y, w, h }) {
    e.attr('aria-label', label);
    e.attr('x', x); e.attr('y', y);
    e.attr('width', Math.max(0, w)); e.attr('height', Math.max(0, h));
  }
}
