// What the teaching panels (2 · cosine vs dot, 3 · distance, 4 · the hull) have in common: a text
// that explains, its formula under it, and a plot as wide as the panel is on screen.
import { Figure } from './base.js';

export class TeachingPanel extends Figure {
  /**
   * @param {{id: string, title: string, text: string, formula: Function, formulaOf: string, width: number}} opts
   *   formula(node, name) writes the formula `formulaOf` into node; width: the plot's width (in plot
   *   units) where the panel's own is not known yet.
   */
  constructor(slot, { id, title, text, formula, formulaOf, width }) {
    super(slot, { id, title });
    const teach = this.body.append('div').attr('class', 'teach-text');
    teach.append('p').text(text);
    formula(teach.append('div').attr('class', 'formula').node(), formulaOf);
    this.width = width;
  }

  /** The width (in plot units) the figure has on screen now. */
  fitRoom() { return (this.body.node().clientWidth || this.width) / this.scale; }

  /**
   * The same width, watched: the panel is redrawn when it changes. Kept in this.room.
   * (A phone's 330 px once drew a 440-unit plot at 0.75: 6 px labels.)
   */
  watchRoom() {
    this.room = (this.observedWidth(this.body.node(), () => { if (this.data && this.room !== this.fitRoom()) this.draw(); }) || this.width) / this.scale;
    return this.room;
  }
}
