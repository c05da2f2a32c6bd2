// <attn-scope>: one attention figure for a lecture note, slides or a notebook. Attributes set the state
// (query, keys, score, temperature, …, view); changing one redraws. It is built from the demo's figures
// and their registry (web/shared/figures/registry.js: its views, how each figure is made and fed) and the
// demo's computation (web/shared/compute/): one implementation of every plot.
//
// Every element on a page shares one wasm instance and one load of the built-in 10,000-word vocabulary (a promise
// held by this module); an element with its own `vocab` URL gets its own vocabulary: a second scope on
// the same wasm instance (scope.newScope), one per URL, shared by every element that names it.
//
// Failure is visible and local: an invalid attribute, a vocabulary that cannot be loaded or a text over
// the token limit shows a message in that element (what was wrong, what is allowed) and fires
// `attn-error`; nothing throws out of the element, and the other elements keep working.
import { createAttnScope } from 'attnscope';
// The built-in 10,000 words: for the module build, the package's asset entry (so a site's bundler copies
// glove-10k.bin); the classic script carries them inlined and maps this import to nothing.
import 'attnscope/vocab-10k';
// Where the app's bundler put the model, when the app opted into it (import 'attnscope/model'): the
// default of model-src then. (The classic script has no bundler: the default stays beside the page.)
import { optedInUrl } from 'attnscope/files';
import { fmt } from '../shared/figures/base.js';
import { FIGURES, VIEWS, makeFigure } from '../shared/figures/registry.js';
import { compute, context, nearestWords } from '../shared/compute/attention.js';
import { modelViews, MODEL_NAME } from '../shared/compute/use-lite.js';
import { decoderViews } from '../shared/compute/saved-model.js';
import { headLabel, parseHead, parseHeadList, HEAD_ALLOWED, HEAD_LIST_ALLOWED } from '../shared/head-label.js';
import { HEAD_TEMPERATURES } from '../shared/temperature.js';
import { renderTeaching } from '../shared/formulas.js';
import { download } from '../shared/downloads.js';
// The element's own limit (README: at most 64 tokens per text), not the demo page's (web/pages/demo/state.js,
// 2,000 since issue 11): its figures are the SVG ones, readable up to about 64 tokens.
const MAX_TOKENS = 64;
import themeCss from '../shared/figures/theme.css';
import figuresCss from '../shared/figures/figures.css';
import elementCss from './element.css';

// model="transformer": a decoder saved by model.save() (transformer.html's “Save the model”), at model-src.
const SAVED_MODEL = 'transformer';
// What scope.loadModel() read: a transformer (createModel's kind, 'decoder' or 'encoder-decoder'), or USE-Lite.
const isSavedTransformer = (m) => m.kind === 'decoder' || m.kind === 'encoder-decoder';

// ---------------------------------------------------------------------------- the vocabulary ----
// One promise per vocabulary: '' is the built-in 10,000-word one, shared by every element without a
// `vocab` attribute; a URL gets its own (resolved against the page). A failed load is forgotten, so a
// later element (or a corrected attribute) tries again. A URL's scope (its vocabulary: 1.5 MB of wasm
// memory per 10,000 words) is freed when the last connected element using it goes (see useScope);
// the built-in one holds the wasm instance every element shares, and stays.
const scopes = new Map();
const scopeKey = (vocab) => (vocab ? new URL(vocab, document.baseURI).href : '');
function scopeFor(vocab) {
  const key = scopeKey(vocab);
  if (!scopes.has(key)) {
    // The 10,000-word vocabulary: inlined in the classic script, a file of the package for the module.
    const made = key ? scopeFor('').then(({ scope }) => scope.newScope({ vocabulary: key, preload: true }))
      : createAttnScope({ vocabulary: 'small', preload: true });
    const p = made.then((scope) => ({ scope, nearest: new Map(), key }));
    p.catch(() => { if (scopes.get(key) === p) scopes.delete(key); });
    scopes.set(key, p);
  }
  return scopes.get(key);
}

// The connected elements using each URL's scope. When the last one goes (removed from the page, or its
// vocab attribute changed), the scope is disposed once the current task ends: an element moved in the
// page (disconnected, then connected again at once) keeps it.
const users = new Map();
function useScope(el, key) {
  if (!users.has(key)) users.set(key, new Set());
  users.get(key).add(el);
}
function leaveScope(el, key) {
  const set = users.get(key);
  if (!set || !set.delete(el) || set.size > 0 || key === '') return;
  setTimeout(() => {
    if ((users.get(key)?.size ?? 0) > 0) return;
    users.delete(key);
    const p = scopes.get(key);
    if (!p) return;
    scopes.delete(key);
    p.then(({ scope }) => scope.dispose(), () => {});
  }, 0);
}

// ------------------------------------------------------------------------------ the model ----
// model="use-lite": the trained model's views (web/shared/compute/use-lite.js) instead of the explorer's. Its
// weights file (dist/use-lite.bin, about 14 MB: the element's single-file module carries none) is
// fetched from model-src (default: use-lite.bin beside the page) once per URL, shared by every element
// that shows it, and freed (model.dispose(): about 28 MB of wasm memory) once the last of them is
// removed or shows another model, as a vocabulary URL's scope is.
const models = new Map();
const modelUsers = new Map();
const modelKey = (src) => new URL(src, document.baseURI).href;
function modelFor(scope, src) {
  const key = modelKey(src);
  if (!models.has(key)) {
    const p = scope.loadModel({ model: key });
    p.catch(() => { if (models.get(key) === p) models.delete(key); });
    models.set(key, p);
  }
  return models.get(key);
}
function useModel(el, key) {
  if (!modelUsers.has(key)) modelUsers.set(key, new Set());
  modelUsers.get(key).add(el);
}
function leaveModel(el, key) {
  const set = modelUsers.get(key);
  if (!set || !set.delete(el) || set.size > 0) return;
  setTimeout(() => {   // once the current task ends: an element moved in the page keeps the model
    if ((modelUsers.get(key)?.size ?? 0) > 0) return;
    modelUsers.delete(key);
    const p = models.get(key);
    if (!p) return;
    models.delete(key);
    p.then((model) => model.dispose(), () => {});
  }, 0);
}

// ------------------------------------------------------------------------------- attributes ----
/** The views: which figures each shows, in order (from the figures' registry). */
export { VIEWS };
/** The explorer's views (the view 'model' is the model attribute's). */
const EXPLORER_VIEWS = Object.keys(VIEWS).filter((v) => v !== 'model');
// Every name of the module (scores, variants, masks, projections) comes from its registry
// (scope.registry, from src/attnscope/registry.hpp): none is listed here.
const namesOf = (list) => list.map((x) => x.name);
/** Projections attend() takes by name ('user' is the object form, which attributes cannot give). */
const projectionsOf = (scope) => namesOf(scope.registry.projections).filter((n) => n !== 'user');
const THEMES = ['light', 'dark', 'auto'];
/** The controls an element can show, in the order they appear. */
export const CONTROLS = ['query', 'keys', 'score', 'temperature', 'heads', 'projection', 'seed', 'positional', 'mask',
  'p', 'eps', 'variant', 'view'];
const DEFAULT_CONTROLS = 'score temperature';

/** Every attribute with its default (as the attribute's text). */
export const DEFAULTS = {
  query: 'The animal didn\'t cross the street because it was too tired.',
  keys: '',
  score: 'scaled-dot',
  temperature: '1',
  heads: '1',
  projection: 'identity',
  seed: '1',
  positional: null,       // boolean attribute: present (and not "false") = on
  mask: 'none',
  p: '2',
  eps: '0.001',
  variant: 'auto',
  view: 'heatmap',
  controls: DEFAULT_CONTROLS,
  cell: '',               // "row,column" (0-based); empty: the first word's strongest key
  theme: 'auto',
  caption: '',
  vocab: '',              // URL of a vocabulary file; empty: the built-in 10,000 words
  model: '',              // 'use-lite': the trained model's views (query: the sentence, keys: a second one);
                          // 'transformer': a decoder saved by model.save(), at model-src (query: its text)
  'model-src': 'use-lite.bin',  // URL of the model's weights file (dist/use-lite.bin)
  // With model: the head shown large, the scoring function it is re-scored with, the heads knocked
  // out. Heads are labelled 'L.H' as the API labels them (layer and head counted from 0); the figures
  // write them 1-based ("layer 1, head 1" is head="0.0"). The demo's link holds the same three
  // (web/pages/demo/state.js: model-head, head-score, head-temperature, knock-out).
  head: '0.0',
  'head-score': 'scaled-dot',
  'head-temperature': '1',  // that head's τ: one of HEAD_TEMPERATURES (1: the model's own)
  'knock-out': '',
  'heading-level': '',    // 1–6: the level of the figures' titles; empty: one below the heading before the element
};
const ATTRS = Object.keys(DEFAULTS);

/** An invalid attribute: the message says what was wrong and what is allowed. */
class AttributeError extends Error {
  constructor(attribute, value, allowed) {
    super(`${attribute}="${String(value).slice(0, 60)}" is not valid: expected ${allowed}.`);
    this.attribute = attribute;
  }
}

const NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
function number(attr, text, { min, exclusive = false, integer = false, max = Infinity }, allowed) {
  if (!NUMBER.test(text)) throw new AttributeError(attr, text, allowed);
  const v = Number(text);
  if (!Number.isFinite(v) || (exclusive ? !(v > min) : !(v >= min)) || v > max || (integer && !Number.isInteger(v))) {
    throw new AttributeError(attr, text, allowed);
  }
  return v;
}
function choice(attr, text, list) {
  if (!list.includes(text)) throw new AttributeError(attr, text, `one of ${list.join(', ')}`);
  return text;
}

// ------------------------------------------------------------------------- heading levels ----
// The figures' titles are headings. Their level is the heading-level attribute's; without it, one
// below the nearest heading before the element in its document (or the shadow root it sits in) when
// it is connected: under an h1 the titles are h2s, under an h2 h3s, and so on (at most h6); with no
// heading before it, h2. So a page's outline never skips a level (WCAG 1.3.1, axe's heading-order).
const HEADINGS = 'h1, h2, h3, h4, h5, h6, [role="heading"]';
function levelOf(h) {
  if (h.getAttribute('role') === 'heading' || h.hasAttribute('aria-level')) {
    const n = Number(h.getAttribute('aria-level'));
    if (Number.isInteger(n) && n >= 1) return Math.min(n, 6);
    if (h.getAttribute('role') === 'heading') return 2;   // ARIA's default level of role=heading
  }
  return Number(h.localName.slice(1));
}
/** One below the nearest heading before el in its tree (document order); 2 when there is none. */
function derivedHeadingLevel(el) {
  const root = el.getRootNode();
  if (!root || typeof root.querySelectorAll !== 'function') return 2;
  let before = null;
  for (const h of root.querySelectorAll(HEADINGS)) {
    if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) before = h; else break;
  }
  return before ? Math.min(6, levelOf(before) + 1) : 2;
}
const HEADING_LEVEL_ALLOWED = 'a whole number from 1 to 6 (the level of the figures’ titles: h1 to h6), or no heading-level attribute for one below the heading before the element';
function headingLevel(text) {
  const t = text.trim();
  if (!/^[1-6]$/.test(t)) throw new AttributeError('heading-level', text, HEADING_LEVEL_ALLOWED);
  return Number(t);
}

/** A menu entry: the name, and the registry's description when it has one. */
function describeName(entry) {
  return entry.description ? `${entry.name}: ${entry.description}` : entry.name;
}

let sheet = null;
function styles() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(`${themeCss}\n${figuresCss}\n${elementCss}`);
  }
  return sheet;
}

// Keys a focused form control acts on (its default action), by the kind of control; Tab and Escape
// always go on to the page.
const TEXT_INPUTS = new Set(['text', 'number', 'search', 'url', 'email', 'tel', 'password']);
const SLIDER_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);
const PRESS_KEYS = new Set([' ', 'Enter']);
function controlOwnsKey(ev) {
  if (ev.key === 'Tab' || ev.key === 'Escape') return false;
  const el = ev.composedPath()[0];
  const tag = el && el.localName;
  if (tag === 'textarea' || (tag === 'input' && TEXT_INPUTS.has(el.type))) return true;   // typing and caret keys
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return false;
  if (tag === 'select') return SLIDER_KEYS.has(ev.key) || PRESS_KEYS.has(ev.key) || ev.key.length === 1;   // and type-ahead letters
  if (tag === 'input' && el.type === 'range') return SLIDER_KEYS.has(ev.key);
  if (tag === 'input' || tag === 'button') return PRESS_KEYS.has(ev.key);
  return false;
}

// What a model that could not be loaded needs, in the page's words. From a page opened from disk the
// browser refuses to read the file beside it: the reader chooses it instead (a file chosen by the person
// at the computer can be read; it goes nowhere), or serves the folder over http.
function modelError(src, error, transformer = false) {
  let url = null;
  try { url = new URL(src, document.baseURI); } catch { /* the library's message says what is wrong */ }
  if (url && url.protocol === 'file:') {
    const name = url.pathname.split('/').pop() || (transformer ? 'model.safetensors' : 'use-lite.bin');
    // A file chosen below that is not the model: say so, and offer the choice again.
    const chosen = /^options\.model/.test(error.message) ? ` The file chosen is not the model (${error.message.replace(/^options\.model: /, '')}).` : '';
    const e = new Error(`the trained model's file (${name}) cannot be read by this page.${chosen} It was opened from disk (file://), and browsers do not `
      + `let a page read another file from disk. Choose ${name} below (it is read on this computer and sent nowhere), or serve this `
      + 'folder over http (for example run “python3 -m http.server” in it and open the page at http://localhost:8000/).');
    e.attribute = 'model-src';
    e.chooseModel = { key: url.href, name };
    return e;
  }
  const why = error.message.replace(/check the URL given as options\.model/, 'check the model-src attribute');
  return new AttributeError('model-src', src, `the URL of ${transformer ? 'a model saved by model.save() (a .safetensors file)' : 'the model\'s weights file (dist/use-lite.bin)'} that this page can load (${why})`);
}

// What a vocab attribute that could not be loaded needs. A page opened from disk cannot read another
// file from disk (browsers refuse file:// fetches), so the library's message about options.vocabulary
// would not help there: say so, and how to fix it.
function vocabularyFix(vocab, error) {
  let url = null;
  try { url = new URL(vocab, document.baseURI); } catch { /* the library's message says what is wrong */ }
  if (url && url.protocol === 'file:') {
    return 'the URL of a vocabulary file that this page can load. This page was opened from disk (file://), and browsers do not '
      + 'let a page read another file from disk: serve the folder over http (for example run “python3 -m http.server” in it and '
      + 'open the page at http://localhost:8000/), or give the https:// URL of a server that has the file (and allows other '
      + 'sites to read it: CORS), or leave vocab out for the built-in 10,000 words';
  }
  // A long URL is quoted once, cut (the library's message may repeat it whole: a 1 MiB data: URL).
  const shown = vocab.length > 80 ? `${vocab.slice(0, 80)}… (${vocab.length} characters)` : vocab;
  let why = error.message.replace(/^options\.vocabulary: /, '').replace(/check the URL given as options\.vocabulary/, 'check the vocab attribute');
  if (vocab) why = why.split(vocab).join(shown);
  if (why.length > 400) why = `${why.slice(0, 400)}…`;
  return `the URL of a vocabulary file that this page can load (${why}); leave it out for the built-in 10,000 words`;
}

// The caption names the figure for screen readers: its first 200 characters (a 1 MB caption stays
// visible in full under the figure, but is no name).
function label(caption) {
  return caption.length > 200 ? `${caption.slice(0, 200)}…` : caption;
}

let uid = 0;
const live = new Set();   // connected elements (to draw everything before printing)

// Importing this module must work where there is no DOM (a server rendering the page, a test in Node):
// nothing here touches a DOM global while the module evaluates; the class extends an empty stand-in
// there, and define() defines nothing.
const ElementBase = typeof HTMLElement === 'undefined' ? class {} : HTMLElement;

export class AttnScopeElement extends ElementBase {
  static get observedAttributes() { return ATTRS; }

  /** The vocabularies whose scopes are held now: '' (the built-in one) and the URLs elements use. */
  static vocabularies() {
    return [...scopes.keys()];
  }

  /** Wasm memory in use (bytes) of the shared instance (the built-in vocabulary's), once loaded. */
  static async memoryInUse(vocab = '') {
    const { scope } = await scopeFor(vocab);
    return scope.memoryInUse();
  }

  /** The shared scope (the attnscope JS API) of a vocabulary ('' = the built-in one). */
  static scope(vocab = '') {
    return scopeFor(vocab).then((s) => s.scope);
  }

  constructor() {
    super();
    this._id = ++uid;
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [styles()];
    this._box = document.createElement('div');
    this._box.className = 'attn';
    this._box.setAttribute('role', 'group');
    this._controls = document.createElement('div');
    this._controls.className = 'attn-controls';
    this._status = document.createElement('div');
    this._status.className = 'attn-status';
    this._status.setAttribute('role', 'status');
    this._error = document.createElement('div');
    this._error.className = 'attn-error';
    this._error.setAttribute('role', 'alert');
    this._error.hidden = true;
    this._figuresEl = document.createElement('div');
    this._figuresEl.className = 'attn-figures';
    // The legend of the red "word?" mark, shown while a word of the texts is out of the vocabulary.
    this._oov = document.createElement('p');
    this._oov.className = 'attn-oov';
    this._oov.hidden = true;
    this._caption = document.createElement('p');
    this._caption.className = 'attn-caption';
    this._box.append(this._controls, this._status, this._error, this._figuresEl, this._oov, this._caption);
    root.append(this._box);
    // Keys the element's own controls act on stay in the element (the figures consume theirs the same
    // way): a host page sees the focused element, not the control inside its shadow root, so a reveal.js
    // deck would otherwise turn the slide on the arrow that moves a slider, or on a letter typed into the query.
    this._box.addEventListener('keydown', (ev) => { if (controlOwnsKey(ev)) ev.stopPropagation(); });
    this._figs = null;          // name → figure, for the current view
    this._viewName = null;
    this._controlsKey = null;
    this._inputs = {};
    this._scope = null;          // { scope, nearest, key } once loaded
    this._scopeKey = undefined;
    this._usesKey = undefined;   // the vocabulary key this element counts as a user of (see useScope)
    this._result = null;
    this._local = { head: 0, values: 'weights', row: null, exp: false, cellClosed: false };
    this._changed = new Set();
    this._unannounced = new Set();   // changes not yet named by an attn-change
    this._queued = false;
    this._ready = false;
    this._generation = 0;
  }

  // ---- properties mirror attributes ----
  get result() { return this._result; }

  connectedCallback() {
    live.add(this);
    // Where the element is now decides its titles' level (unless heading-level gives it).
    this._autoLevel = derivedHeadingLevel(this);
    this._box.setAttribute('aria-label', 'Attention figure');
    this._status.textContent = 'Loading the attention module…';
    this._invalidate();
  }

  disconnectedCallback() {
    live.delete(this);
    this._dropFigures();
    // Its vocabulary may be freed now (when no other element uses it): connected again, it asks anew.
    if (this._usesKey !== undefined) leaveScope(this, this._usesKey);
    this._usesKey = undefined;
    this._scope = null;
    // So may its model.
    this._leaveModel();
  }

  /**
   * In a reveal.js deck: reveal centres a slide by its height when it lays the deck out, before the figure
   * has drawn, so a figure drawn later ran off the bottom of its slide. Once drawn (and after each
   * redraw, which may change its height), the element asks reveal to lay the deck out again.
   */
  _relayoutSlides() {
    const R = typeof window !== 'undefined' ? window.Reveal : undefined;
    if (!R || typeof R.layout !== 'function' || !this.closest('.reveal')) return;
    if (typeof R.isReady === 'function' && !R.isReady()) return;   // reveal lays out itself once ready
    try { R.layout(); } catch { /* a deck that cannot lay out now: its own next layout will */ }
  }

  /**
   * The model file's URL: model-src, else (model="use-lite") where the app's bundler put use-lite.bin,
   * else use-lite.bin beside the page. A saved transformer (model="transformer") has no default.
   */
  _modelSrcNow() {
    const given = (this.getAttribute('model-src') ?? '').trim();
    if (this._attr('model').trim() === SAVED_MODEL) return given;
    return given || optedInUrl('use-lite.bin')?.href || DEFAULTS['model-src'];
  }

  /** This element no longer shows its model (removed, or showing another): freed with its last element. */
  _leaveModel() {
    if (this._modelSrc !== undefined && this._modelSrc !== null) leaveModel(this, modelKey(this._modelSrc));
    this._model = null;
    this._modelSrc = null;
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    this._changed.add(name);
    if (name === 'cell') this._local.cellClosed = false;
    this._invalidate();
  }

  _invalidate() {
    if (this._queued) return;
    this._queued = true;
    queueMicrotask(() => {
      this._queued = false;
      if (this.isConnected) this._update();
    });
  }

  _attr(name) {
    const v = this.getAttribute(name);
    return v === null ? DEFAULTS[name] : v;
  }

  // ---- the update: read the attributes, check them, compute, hand the figures their jobs ----
  async _update() {
    // What changed since the last attn-change: a change made while the figures of the one before were
    // still drawing (that drawing is then dropped, and fires nothing) is named by the next event.
    for (const name of this._changed) this._unannounced.add(name);
    this._changed.clear();
    const changed = this._unannounced;
    try {
      this._caption.textContent = this._attr('caption');
      choice('theme', this._attr('theme').trim() || 'auto', THEMES);
      this._applyHeadingLevel();
      const vocab = this._attr('vocab').trim();
      if (!this._scope || this._scopeKey !== vocab) {
        this._scopeKey = vocab;
        this._scope = null;
        this._status.textContent = vocab ? `Loading the vocabulary ${vocab}…` : 'Loading the attention module…';
        let loaded;
        try {
          const key = scopeKey(vocab);
          if (this._usesKey !== key) {
            if (this._usesKey !== undefined) leaveScope(this, this._usesKey);
            this._usesKey = key;
            useScope(this, key);
          }
          loaded = await scopeFor(vocab);
        } catch (e) {
          throw new AttributeError('vocab', vocab, vocabularyFix(vocab, e));
        }
        if (this._scopeKey !== vocab) return;   // changed while loading: a newer update follows
        // Removed while loading: the scope may be freed already; connected again, it asks anew.
        if (!this.isConnected || this._usesKey !== scopeKey(vocab)) return;
        this._scope = loaded;
      }
      const modelName = this._attr('model').trim();
      if (modelName) {
        choice('model', modelName, [MODEL_NAME, SAVED_MODEL]);
        const saved = modelName === SAVED_MODEL;
        const src = this._modelSrcNow();
        if (!src) throw new AttributeError('model-src', '', 'the URL of a transformer saved by model.save() (a .safetensors file, such as the one transformer.html\'s “Save the model” downloads)');
        if (!this._model || this._modelSrc !== src) {
          this._status.textContent = `Loading the trained model ${src}…`;
          let m;
          try {
            // On the built-in scope, which is never released (a vocab URL's scope goes with its last
            // element, and the model needs no vocabulary).
            m = await modelFor((await scopeFor('')).scope, src);
          } catch (e) {
            throw modelError(src, e, saved);
          }
          if (this._modelSrcNow() !== src) return;   // changed while loading: a newer update follows
          if (!this.isConnected) return;   // removed while loading: connected again, it asks anew
          this._leaveModel();
          this._model = m;
          this._modelSrc = src;
          useModel(this, modelKey(src));
        }
        // The file decides what the model is (use-lite.bin, or a transformer's safetensors): the attribute must say the same.
        const isTransformer = isSavedTransformer(this._model);
        if (isTransformer !== saved) {
          throw new AttributeError('model', modelName, isTransformer
            ? `“${SAVED_MODEL}”: the file at model-src is a transformer saved by model.save()`
            : `“${MODEL_NAME}”: the file at model-src is the trained model ${MODEL_NAME}`);
        }
        this._renderModel(changed);
        return;
      }
      this._leaveModel();   // the model attribute was removed: the explorer again
      this._render(changed);
    } catch (e) {
      this._fail(e);
    }
  }

  /** Reads and checks every attribute; returns the state web/shared/compute/attention.js takes. */
  _state(scope) {
    const names = namesOf(scope.registry.scores);
    const d = scope.vocabulary.dim;
    const st = {
      q: this._attr('query'),
      k: this._attr('keys'),
      score: choice('score', this._attr('score').trim(), names),
      t: number('temperature', this._attr('temperature'), { min: 0, exclusive: true }, 'a number > 0 (the softmax temperature τ; 1 leaves the scores as they are)'),
      heads: number('heads', this._attr('heads'), { min: 1, max: d, integer: true }, `a whole number of heads from 1 to ${d} (the vectors have ${d} dimensions)`),
      proj: choice('projection', this._attr('projection').trim(), projectionsOf(scope)),
      seed: number('seed', this._attr('seed'), { min: 0, max: 0xffffffff, integer: true }, 'a whole number from 0 to 4294967295'),
      pos: this.hasAttribute('positional') && this.getAttribute('positional') !== 'false',
      mask: choice('mask', this._attr('mask').trim(), namesOf(scope.registry.masks)),
      p: number('p', this._attr('p'), { min: 0, exclusive: true }, 'a number > 0 (the idw exponent)'),
      eps: number('eps', this._attr('eps'), { min: 0 }, 'a number >= 0 (the idw ε)'),
      variant: this._attr('variant').trim(),
      head: this._local.head,
      values: this._local.values,
      row: this._local.row,
      exp: this._local.exp,
      cell: null,
    };
    if (!scope.variants.available.includes(st.variant)) {
      const all = namesOf(scope.registry.variants);
      throw new AttributeError('variant', st.variant, all.includes(st.variant)
        ? `one of ${scope.variants.available.join(', ')} (this browser has no wasm SIMD)` : `one of ${scope.variants.available.join(', ')}`);
    }
    const view = choice('view', this._attr('view').trim(), EXPLORER_VIEWS);
    const controls = this._attr('controls').trim().split(/\s+/).filter(Boolean);
    if (!(controls.length === 1 && controls[0] === 'none')) {
      for (const c of controls) {
        if (!CONTROLS.includes(c)) throw new AttributeError('controls', this._attr('controls'), `a list of ${CONTROLS.join(', ')} (separated by spaces), or none`);
      }
    }
    const cellText = this._attr('cell').trim();
    let cell = null;
    if (cellText) {
      const m = /^(\d{1,4})\s*,\s*(\d{1,4})$/.exec(cellText);
      if (!m) throw new AttributeError('cell', cellText, '“row,column”, two whole numbers counted from 0 (e.g. cell="1,2")');
      cell = [Number(m[1]), Number(m[2])];
    }
    // Texts: at least one token each, at most MAX_TOKENS (the plots stay readable).
    for (const [attr, text] of [['query', st.q], ['keys', st.k]]) {
      if (attr === 'keys' && !text.trim()) continue;
      let n;
      try { n = scope.tokenize(text, { maxTokens: 65536 }).length; } catch (e) { throw new AttributeError(attr, text, `well-formed text (${e.message})`); }
      if (n === 0) throw new AttributeError(attr, text, attr === 'query' ? 'text with at least one word' : 'text with at least one word, or no keys attribute for self-attention');
      if (n > MAX_TOKENS) {
        const e = new AttributeError(attr, text.slice(0, 40) + '…', `at most ${MAX_TOKENS} tokens; this text has ${n}. Shorten it, or split it over several figures`);
        throw e;
      }
    }
    return { st, view, controls: controls[0] === 'none' ? [] : controls, cell, names };
  }

  _render(changed) {
    const { scope, nearest } = this._scope;
    const { st, view, controls, cell, names } = this._state(scope);
    const c = compute(scope, st, { limit: MAX_TOKENS, scoreParams: true });
    const r = c.main;
    // The cell "why" explains: the attribute's (checked against the matrix), else the first word's
    // strongest key.
    if (cell) {
      if (cell[0] >= r.nq || cell[1] >= r.nk) {
        throw new AttributeError('cell', `${cell[0]},${cell[1]}`, `a cell inside the ${r.nq} × ${r.nk} matrix: row 0 to ${r.nq - 1}, column 0 to ${r.nk - 1}`);
      }
      st.cell = cell;
    } else if (VIEWS[view].includes('why')) {
      const i = Math.max(0, r.queryTokenInfo.findIndex((t) => t.kind === 'word' && !t.oov));
      let j = 0;
      const head = Math.min(st.head, r.heads - 1);
      for (let t = 1; t < r.nk; t++) if (r.weights[head * r.nq * r.nk + i * r.nk + t] > r.weights[head * r.nq * r.nk + i * r.nk + j]) j = t;
      st.cell = [i, j];
    }
    if (this._local.cellClosed) st.cell = null;
    this._result = r;
    this._showOov(scope, r, c.k);
    this._clearError();
    this._status.textContent = '';
    this._box.setAttribute('aria-label', label(this._attr('caption')) || `Attention figure (${view}): ${r.nq} query tokens, ${r.nk} key tokens`);
    this._buildControls(controls, scope, names);
    this._syncControls(st, view);
    this._buildFigures(view);
    const scaleSize = parseFloat(getComputedStyle(this._box).fontSize) || 14;
    const scoreInfo = new Map(scope.scoreFunctions.map((s) => [s.name, s]));
    const x = context(scope, c, st, { scoreNames: names, scoreInfo, nearest: (tok) => nearestWords(scope, nearest, tok) });
    const gen = ++this._generation;
    let pending = this._figs.size;
    const done = () => {
      if (--pending > 0 || gen !== this._generation) return;
      if (!this._ready) {
        this._ready = true;
        changed.clear();
        this._emit('attn-ready', { result: r });
      } else {
        this._emit('attn-change', { changed: this._announce(changed), result: r });
      }
      this._relayoutSlides();
    };
    for (const [name, f] of this._figs) {
      f.scale = scaleSize / 14;
      f.schedule(() => {
        try {
          FIGURES[name].feed(f, x);
        } catch (e) {
          this._fail(e);
          return;
        }
        done();
      }, false);
    }
  }

  /** The head, its scoring function and the knocked-out heads, from the attributes (checked against the model). */
  _modelState(scope, m) {
    const headText = this._attr('head').trim();
    if (!parseHead(headText, m.layers, m.heads)) throw new AttributeError('head', headText, HEAD_ALLOWED(m.layers, m.heads));
    const saved = isSavedTransformer(m);
    // A saved transformer's heads each have their own scoring function: without head-score, the head's own.
    const swap = saved && !this.hasAttribute('head-score') ? '' : choice('head-score', this._attr('head-score').trim(), namesOf(scope.registry.scores));
    const tauText = this._attr('head-temperature').trim();
    const tau = /^[0-9.]+$/.test(tauText) ? Number(tauText) : NaN;
    if (saved && tau !== 1) throw new AttributeError('head-temperature', tauText, '1: a saved transformer\'s heads keep their own τ (head-temperature is for the trained model use-lite)');
    if (!HEAD_TEMPERATURES.includes(tau)) throw new AttributeError('head-temperature', tauText, `one of ${HEAD_TEMPERATURES.join(', ')} (1: the model's own)`);
    const knock = parseHeadList(this._attr('knock-out'), m.layers, m.heads);
    if (!knock) throw new AttributeError('knock-out', this._attr('knock-out'), HEAD_LIST_ALLOWED(m.layers, m.heads));
    return { head: headLabel(...parseHead(headText)), swap, tau, knock };
  }

  /** The changes an attn-change names (then forgotten). */
  _announce(changed) {
    const list = [...changed];
    changed.clear();
    return list;
  }

  /** model="use-lite": the model's figures (the registry's view 'model') on the query (and keys). */
  _renderModel(changed) {
    const { scope } = this._scope;
    const m = this._model;
    const q = this._attr('query');
    if (!q.trim()) throw new AttributeError('query', q, 'text with at least one word');
    const { head, swap, tau, knock } = this._modelState(scope, m);
    let v;
    if (isSavedTransformer(m)) {
      if (this._attr('keys').trim()) throw new AttributeError('keys', this._attr('keys'), 'nothing: a saved decoder reads one text, the query');
      const name = decodeURIComponent(new URL(this._modelSrc, document.baseURI).pathname.split('/').pop() || SAVED_MODEL);
      try {
        v = decoderViews(scope, m, { name, text: q, head, swap, knock });
      } catch (e) {
        if (e instanceof RangeError && e.message.startsWith('text: expected ')) throw new AttributeError('query', q, e.message.slice('text: expected '.length));
        throw e;
      }
    } else {
      v = modelViews(scope, m, { text: q, text2: this._attr('keys'), head, swap, tau, knock });
    }
    this._result = v;
    this._clearError();
    this._status.textContent = v.truncated || (v.second && v.second.truncated)
      ? `The ${v.kind === 'decoder' ? 'model' : 'trained model'} reads at most ${v.maxTokens} tokens: the text was cut after its first ${v.maxTokens}.` : '';
    this._box.setAttribute('aria-label', label(this._attr('caption')) || `The ${v.kind === 'decoder' ? 'saved transformer' : 'trained model'} ${v.name}: ${v.layers} layers × ${v.heads} heads on ${v.n} tokens`);
    this._controls.textContent = '';
    this._controlsKey = null;
    this._buildFigures('model');
    const x = { v, st: {}, scoreFunctions: scope.scoreFunctions };
    const gen = ++this._generation;
    let pending = this._figs.size;
    const scaleSize = parseFloat(getComputedStyle(this._box).fontSize) || 14;
    for (const [name, f] of this._figs) {
      f.scale = scaleSize / 14;
      f.schedule(() => {
        try { FIGURES[name].feed(f, x); } catch (e) { this._fail(e); return; }
        if (--pending > 0 || gen !== this._generation) return;
        if (!this._ready) { this._ready = true; changed.clear(); this._emit('attn-ready', { result: v }); } else this._emit('attn-change', { changed: this._announce(changed), result: v });
        this._relayoutSlides();
      }, false);
    }
  }

  // ---- figures ----
  _buildFigures(view) {
    if (this._figs && this._viewName === view) return;
    this._dropFigures();
    this._viewName = view;
    this._figs = new Map();
    // The figures' changes of the state: a field an attribute holds sets the attribute; the others
    // (the head shown, weights or scores, a panel's row, …) are the element's own.
    const host = {
      formula: (el, key) => renderTeaching(el, key),
      set: (patch) => {
        for (const [k, v] of Object.entries(patch)) {
          if (k === 'cell' && v === null) this._setLocal({ cellClosed: true });
          // The model's figures name the state as the demo does (mhead, mswap, mtau, mknock): attributes here.
          else if (k === 'mhead') this._set('head', v);
          else if (k === 'mswap') this._set('head-score', v);
          else if (k === 'mtau') this._set('head-temperature', String(v));
          else if (k === 'mknock') this._set('knock-out', v.join(','));
          // 'head' from the explorer's figures is the head shown among `heads` (the element's own).
          else if (k in DEFAULTS && k !== 'head') this._set(k, String(v));
          else this._setLocal({ [k]: v });
        }
      },
    };
    for (const name of VIEWS[view]) {
      const slot = document.createElement('div');
      slot.className = name === 'heatmap' ? 'slot fit' : 'slot';
      this._figuresEl.append(slot);
      const f = makeFigure(name, slot, host);
      f.setHeadingLevel(this._level || this._headingLevel());
      f.measureName = `element-${name}`;
      f.fitWidth = true;
      f.addEventListener('export', (ev) => this._download(f, ev.detail.format));
      this._figs.set(name, f);
    }
    // The heatmap's cells only: the element has no selections of rows or columns (the demo's `rows`, `cols`).
    const heatmap = this._figs.get('heatmap');
    // With "Why this weight?" below it (view="why"), the explanation is revealed and focused once it
    // shows the cell; Escape there returns to the heatmap (WhyPanel.revealWhenShowing).
    const why = this._figs.get('why');
    if (heatmap) {
      heatmap.addEventListener('select', (ev) => {
        if (ev.detail.kind !== 'cell') return;
        this._set('cell', `${ev.detail.i},${ev.detail.j}`);
        if (why) why.revealWhenShowing([ev.detail.i, ev.detail.j], heatmap.svg.node());
      });
    }
  }

  /** The level of the figures' titles: the heading-level attribute's (checked), or the one derived at connect time. */
  _headingLevel() {
    const text = this.getAttribute('heading-level');
    return text === null || text.trim() === '' ? (this._autoLevel || 2) : headingLevel(text);
  }

  _applyHeadingLevel() {
    this._level = this._headingLevel();
    if (this._figs) for (const f of this._figs.values()) f.setHeadingLevel(this._level);
  }

  _dropFigures() {
    if (this._figs) for (const f of this._figs.values()) f.dispose();
    this._figs = null;
    this._viewName = null;
    this._figuresEl.textContent = '';
  }

  async _download(f, format) {
    try {
      download(await f.toBlob(format), `${f.fileStem()}.${format}`);
    } catch (e) {
      this._fail(e);
    }
  }

  /** A change made inside the element (a figure or a control) that an attribute holds. */
  _set(name, value) {
    if (this.getAttribute(name) !== value) this.setAttribute(name, value);
  }

  /** A change that only the element holds (the head shown, weights or scores, a panel's row…). */
  _setLocal(patch) {
    Object.assign(this._local, patch);
    this._changed.add(Object.keys(patch)[0]);
    this._invalidate();
  }

  // ---- controls ----
  _buildControls(list, scope, names) {
    const key = list.join(' ') + '|' + names.join(',') + '|' + scope.variants.available.join(',');
    if (key === this._controlsKey) return;
    this._controlsKey = key;
    this._controls.textContent = '';
    this._inputs = {};
    const id = (n) => `attn-${this._id}-${n}`;
    const add = (name, labelText, input, cls = '') => {
      const wrap = document.createElement('div');
      wrap.className = `attn-control ${cls}`.trim();
      const label = document.createElement('label');
      label.htmlFor = id(name);
      label.textContent = labelText;
      input.id = id(name);
      if (cls === 'check') wrap.append(input, label); else wrap.append(label, input);
      this._controls.append(wrap);
      this._inputs[name] = input;
      return wrap;
    };
    const select = (options) => {
      const s = document.createElement('select');
      for (const [value, text] of options) {
        const o = document.createElement('option');
        o.value = value;
        o.textContent = text;
        s.append(o);
      }
      return s;
    };
    const inputOf = (type, attrs = {}) => {
      const i = document.createElement('input');
      i.type = type;
      for (const [k, v] of Object.entries(attrs)) i.setAttribute(k, v);
      return i;
    };
    const info = new Map(scope.scoreFunctions.map((sf) => [sf.name, sf]));
    // The controls that set their attribute to their value on 'change': [label, input].
    const plain = {
      score: () => ['Scoring function', select(names.map((n) => [n, info.get(n) ? `${n}   ${info.get(n).formula}` : n]))],
      heads: () => ['Heads', inputOf('number', { min: '1', max: String(scope.vocabulary.dim), step: '1', inputmode: 'numeric' })],
      seed: () => ['Seed', inputOf('number', { min: '0', max: '4294967295', step: '1', inputmode: 'numeric' })],
      eps: () => ['idw ε', inputOf('number', { min: '0', step: 'any' })],
      projection: () => ['Projection', select(scope.registry.projections.filter((pr) => pr.name !== 'user').map((pr) => [pr.name, describeName(pr)]))],
      mask: () => ['Mask', select(scope.registry.masks.map((m) => [m.name, describeName(m)]))],
      variant: () => ['Kernels', select(scope.variants.available.map((v) => [v, v]))],
      view: () => ['View', select(EXPLORER_VIEWS.map((v) => [v, v]))],
    };
    // The sliders, with the value they set shown beside their label: [label, range, attribute value].
    const sliders = {
      temperature: ['Temperature τ', { min: '-2', max: '1', step: '0.01' }, (v) => String(Number((10 ** Number(v)).toPrecision(3)))],
      p: ['idw exponent p', { min: '0.5', max: '8', step: '0.5' }, (v) => v],
    };
    for (const name of CONTROLS.filter((c) => list.includes(c))) {
      if (plain[name]) {
        const [label, input] = plain[name]();
        add(name, label, input);
        input.addEventListener('change', () => this._set(name, input.value));
      } else if (sliders[name]) {
        const [label, range, value] = sliders[name];
        const input = inputOf('range', range);
        const wrap = add(name, label, input);
        const out = document.createElement('output');
        out.htmlFor = id(name);
        wrap.querySelector('label').append(' ', out);
        this._inputs[`${name}Out`] = out;
        input.addEventListener('input', () => this._set(name, value(input.value)));
      } else if (name === 'query' || name === 'keys') {
        const input = document.createElement('textarea');
        input.rows = 2;
        input.spellcheck = false;
        if (name === 'keys') input.placeholder = 'empty: the query attends to itself';
        add(name, name === 'query' ? 'Query sentence' : 'Key sentence', input, 'wide');
        input.addEventListener('input', () => {
          if (name === 'keys' && !input.value.trim()) this.removeAttribute('keys');
          else this._set(name, input.value);
        });
      } else if (name === 'positional') {
        const input = inputOf('checkbox');
        add(name, 'Positional encoding', input, 'check');
        input.addEventListener('change', () => {
          if (input.checked) this._set('positional', ''); else this.removeAttribute('positional');
        });
      }
    }
  }

  _syncControls(st, view) {
    const i = this._inputs;
    const focused = this.shadowRoot.activeElement;
    const put = (name, value) => { if (i[name] && i[name] !== focused && i[name].value !== value) i[name].value = value; };
    put('query', st.q);
    put('keys', st.k);
    put('score', st.score);
    if (i.temperature) {
      if (i.temperature !== focused) i.temperature.value = String(Math.log10(st.t));
      i.temperatureOut.textContent = `= ${fmt(st.t)}`;
    }
    if (i.p) {
      if (i.p !== focused) i.p.value = String(st.p);
      i.pOut.textContent = `= ${fmt(st.p)}`;
    }
    put('heads', String(st.heads));
    put('seed', String(st.seed));
    put('eps', String(st.eps));
    put('projection', st.proj);
    put('mask', st.mask);
    put('variant', st.variant);
    put('view', view);
    if (i.positional) i.positional.checked = st.pos;
  }

  /** The "word?" legend: which words are not in the vocabulary, and what that means for their weights. */
  _showOov(scope, r, hasKeys) {
    const words = [];
    for (const t of [...r.queryTokenInfo, ...(hasKeys ? r.keyTokenInfo : [])]) if (t.oov && !words.includes(t.text)) words.push(t.text);
    this._oov.hidden = words.length === 0;
    this._oov.textContent = '';
    if (!words.length) return;
    const mark = document.createElement('span');
    mark.className = 'oov-mark';
    mark.setAttribute('aria-hidden', 'true');
    mark.textContent = '?';
    const shown = words.slice(0, 5).map((w) => `“${w}”`).join(', ') + (words.length > 5 ? ` and ${words.length - 5} more` : '');
    const size = scope.vocabulary.size.toLocaleString('en');
    this._oov.append(mark, ` after a word: not in this ${size}-word vocabulary (${shown}). It gets a fixed pseudo-random vector, so its scores say nothing about its meaning.`);
  }

  // ---- errors and events ----
  _fail(e) {
    const message = e && e.message ? e.message : String(e);
    this._result = null;
    this._status.textContent = '';
    this._error.textContent = '';
    const head = document.createElement('strong');
    head.textContent = 'This figure cannot be drawn: ';
    this._error.append(head, message);
    if (e && e.chooseModel) this._error.append(this._modelChooser(e.chooseModel));
    this._error.hidden = false;
    this._box.classList.add('failed');
    if (this._figs) for (const f of this._figs.values()) f.cancel();
    this._generation++;
    this._emit('attn-error', { message, attribute: e && e.attribute });
  }

  /** A file input for the model a page opened from disk cannot fetch: the chosen file's bytes load as that URL's model. */
  _modelChooser({ key, name }) {
    const label = document.createElement('label');
    label.className = 'attn-choose';
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = '.bin,.safetensors,application/octet-stream';
    label.append(`Choose ${name}: `, input);
    input.addEventListener('change', () => {
      const file = input.files && input.files[0];
      if (!file) return;
      this._status.textContent = `Loading the trained model ${file.name}…`;
      const p = Promise.all([scopeFor(''), file.arrayBuffer()]).then(([{ scope }, bytes]) => scope.loadModel({ model: new Uint8Array(bytes) }));
      p.catch(() => { if (models.get(key) === p) models.delete(key); });
      models.set(key, p);   // every element showing this URL's model gets these bytes
      for (const el of document.querySelectorAll('attn-scope')) if (el instanceof AttnScopeElement && el._attr('model').trim()) el._invalidate();
    });
    return label;
  }

  _clearError() {
    this._error.hidden = true;
    this._error.textContent = '';
    this._box.classList.remove('failed');
  }

  _emit(type, detail) {
    // A listener that throws must not stop the element (dispatchEvent reports it, it does not rethrow).
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  // ---- exports ----
  _mainFigure() {
    if (!this._figs || !this._result) throw new Error('the figure is not drawn yet (wait for attn-ready)');
    return this._figs.values().next().value;
  }

  /** The figure (the first of the view) as a PNG file, 2× its size on screen. */
  exportPNG() {
    try { return this._mainFigure().toBlob('png'); } catch (e) { return Promise.reject(e); }
  }

  /** The figure (the first of the view) as a standalone SVG file. */
  exportSVG() {
    try { return this._mainFigure().toBlob('svg'); } catch (e) { return Promise.reject(e); }
  }

  /** Draws every figure now (those out of view are otherwise drawn when scrolled to, or when idle). */
  flush() {
    if (this._figs) for (const f of this._figs.values()) f.runJob();
  }
}

// Properties mirror attributes: el.score = 'cosine' is el.setAttribute('score', 'cosine').
const CAMEL = { positional: 'positional', 'model-src': 'modelSrc', 'heading-level': 'headingLevel', 'head-score': 'headScore', 'head-temperature': 'headTemperature', 'knock-out': 'knockOut' };
for (const name of ATTRS) {
  const prop = CAMEL[name] || name;
  if (name === 'heading-level') {
    // el.headingLevel: the level the titles use now (the attribute's, or the derived one); set to 1–6
    // (or null for the derived level). Anything else is a RangeError here, at the line that set it.
    Object.defineProperty(AttnScopeElement.prototype, prop, {
      get() {
        try { return this._headingLevel(); } catch { return this._autoLevel || 2; }
      },
      set(v) {
        if (v === null || v === undefined || v === '') { this.removeAttribute(name); return; }
        const n = typeof v === 'string' && /^\s*[1-6]\s*$/.test(v) ? Number(v) : v;
        if (!Number.isInteger(n) || n < 1 || n > 6) {
          throw new RangeError(`headingLevel: ${String(v).slice(0, 60)} is not valid: expected ${HEADING_LEVEL_ALLOWED.replace('no heading-level attribute', 'null')}.`);
        }
        this.setAttribute(name, String(n));
      },
      configurable: true, enumerable: true,
    });
    continue;
  }
  if (name === 'positional') {
    Object.defineProperty(AttnScopeElement.prototype, prop, {
      get() { return this.hasAttribute('positional') && this.getAttribute('positional') !== 'false'; },
      set(v) { if (v) this.setAttribute('positional', ''); else this.removeAttribute('positional'); },
      configurable: true, enumerable: true,
    });
    continue;
  }
  const numeric = ['temperature', 'heads', 'seed', 'p', 'eps'].includes(name);
  Object.defineProperty(AttnScopeElement.prototype, prop, {
    get() {
      const v = this.getAttribute(name);
      const text = v === null ? DEFAULTS[name] : v;
      return numeric && NUMBER.test(text) ? Number(text) : text;
    },
    set(v) {
      if (v === null || v === undefined) this.removeAttribute(name);
      else this.setAttribute(name, String(v));
    },
    configurable: true, enumerable: true,
  });
}

// Before printing, every figure is drawn (figures out of view wait for a scroll otherwise).
if (typeof window !== 'undefined') {
  window.addEventListener('beforeprint', () => { for (const el of live) el.flush(); });
}

/**
 * Defines <attn-scope> (once: a second copy of the script on a page leaves the first in place).
 * Returns the class defined under that name, or undefined where there are no custom elements (a server).
 */
export function define(name = 'attn-scope') {
  if (typeof customElements === 'undefined') return undefined;
  if (!customElements.get(name)) customElements.define(name, name === 'attn-scope' ? AttnScopeElement : class extends AttnScopeElement {});
  return customElements.get(name);
}
