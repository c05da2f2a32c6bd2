// Teaching panel 3: distance-based scores. −‖q−k‖ and −log(ε + ‖q−k‖^p) both prefer near keys, but
// the softmax turns them into very different weights: exp(−‖q−k‖) decays with distance, while
// exp(−log(ε + ‖q−k‖^p)) = 1/(ε + ‖q−k‖^p) is Shepard's inverse distance weighting.
import { fmt } from './base.js';
import { BarRowsPanel, rowChooser } from './CosineDotPanel.js';

export class DistancePanel extends BarRowsPanel {
  constructor(slot, { formula, onRow, onP }) {
    super(slot, {
      id: 'distance', title: '3 · Distance as a score', formula, formulaOf: 'idw', width: 520,
      text: 'Scores can also come from distances: a near key is a similar key. With the negative Euclidean distance, the softmax gives weights ∝ e^(−distance), which depend on differences of distances. With idw, the score is −log(ε + distance^p), so the softmax gives weights ∝ 1/(ε + distance^p): inverse distance weighting, where a key twice as near gets 2^p times the weight.',
    });
    const controls = this.body.append('div').attr('class', 'panel-controls');
    this.chooser = rowChooser(controls, 'distance-row', onRow);
    const pw = controls.append('div').attr('class', 'row-chooser');
    pw.append('label').attr('for', 'idw-p').text('Exponent p');
    this.pInput = pw.append('input').attr('type', 'range').attr('id', 'idw-p').attr('min', 0.5).attr('max', 8).attr('step', 0.5)
      .on('input', (ev) => onP(Number(ev.target.value)));
    this.pOut = pw.append('output').attr('for', 'idw-p');
    this.addBars('distance');
  }

  // setData(d), d: { qTokens, kTokens, row, head, p, eps, negEuclid: AttendResult, idw: AttendResult, maskedKey } (both at τ = 1)

  drawRow(d, off, nk) {
    const i = d.row;
    this.pInput.property('value', d.p);
    this.pOut.text(`p = ${d.p}`);
    // The distances are the wasm's own scores, negated: −(−‖q−k‖).
    const dist = Array.from(d.negEuclid.scores.subarray(off, off + nk), (s) => -s);
    const wE = d.negEuclid.weights.subarray(off, off + nk);
    const wI = d.idw.weights.subarray(off, off + nk);
    // The 1/(ε + distance^p) weights, normalised: drawn as dots over the idw bars to show they agree.
    const inv = dist.map((x, j) => (d.maskedKey(i, j) ? 0 : 1 / (d.eps + x ** d.p)));
    const sum = inv.reduce((a, b) => a + b, 0);
    const shepard = inv.map((x) => x / sum);
    const room = this.watchRoom();
    this.drawBars([
      { label: 'distance ‖q − k‖ to each key', values: dist, cls: 'c-norm' },
      { label: 'weight under neg-euclidean (τ = 1)', values: wE, cls: 'c-dot' },
      // The row's title fits the plot's width (~7 px a character at 11 px): the long form, else a short one.
      { label: room >= 470 ? `weight under idw (τ = 1, p = ${d.p}); dots: 1/(ε + distance^p), normalised`
        : `idw (τ = 1, p = ${d.p}); dots: normalised 1/(ε + d^p)`, values: wI, cls: 'c-cos', markers: shepard },
    ], i, room);
    let err = 0;
    for (let j = 0; j < nk; j++) err = Math.max(err, Math.abs(shepard[j] - wI[j]));
    this.stat.text(`Largest difference between the idw weights and normalised 1/(ε + distance^p): ${fmt(err, 2)}.`);
    this.captionEl.text('Same head and mask as above, at τ = 1 (the temperature would change the exponent: weights ∝ 1/(ε + d^p)^(1/τ)).');
  }
}
