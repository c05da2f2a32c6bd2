// The <attn-scope> element's declarations (dist/attnscope-element.d.ts): attributes as typed
// properties, its events with their details, its methods, and the tag in HTMLElementTagNameMap.
import AttnScopeElement, { VIEWS, CONTROLS, DEFAULTS } from 'attnscope/element';
import type { AttnScopeView } from 'attnscope/element';

const el = document.createElement('attn-scope');
const same: AttnScopeElement = el;
el.query = 'The cat sat on the mat.';
el.keys = 'A kitten rested on the rug.';
el.score = 'cosine';
el.temperature = 0.1;
el.heads = 2;
el.projection = 'random';
el.seed = 7;
el.positional = true;
el.mask = 'causal';
el.p = 3;
el.eps = 0.01;
el.variant = 'scalar';
const view: AttnScopeView = 'cosine-dot';
el.view = view;
el.controls = 'score temperature';
el.cell = '1,2';
el.theme = 'dark';
el.caption = 'Cat and mat';
el.vocab = 'glove-50k.bin';
el.headingLevel = 3;
el.headingLevel = null;   // back to one below the heading before the element
const level: 1 | 2 | 3 | 4 | 5 | 6 = el.headingLevel;
void level;
// @ts-expect-error a level outside 1–6
el.headingLevel = 7;
el.addEventListener('attn-ready', (ev) => { const n: number = ev.detail.result.nq; void n; });
el.addEventListener('attn-change', (ev) => { const c: string[] = ev.detail.changed; void c; });
el.addEventListener('attn-error', (ev) => { const m: string = ev.detail.message; void m; });
const found = document.querySelector('attn-scope');
if (found && found.result) {
  const w: Float32Array = found.result.weights;
  void w;
}
async function files(): Promise<Blob[]> {
  const mem: number = await AttnScopeElement.memoryInUse();
  void mem;
  return [await same.exportPNG(), await same.exportSVG()];
}
void files;
void VIEWS.heatmap;
void CONTROLS.length;
void DEFAULTS.score;
