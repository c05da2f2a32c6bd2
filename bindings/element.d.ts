// Types of the <attn-scope> element: import 'attnscope/element' defines it.
import type { AttendResult, AttnScope, MaskName, ProjectionName, ScoreName, VariantName } from './attnscope.js';

/** A view of <attn-scope>: which of the demo's figures it shows. */
export type AttnScopeView = 'heatmap' | 'lines' | 'both' | 'heads' | 'compare' | 'why' | 'scaling' | 'cosine-dot'
  | 'distance' | 'hull' | 'model';
/** A control <attn-scope> can show above its figure (the `controls` attribute lists them). */
export type AttnScopeControl = 'query' | 'keys' | 'score' | 'temperature' | 'heads' | 'projection' | 'seed' | 'positional'
  | 'mask' | 'p' | 'eps' | 'variant' | 'view';
/** A heading level of the figures' titles (the `heading-level` attribute): 1 (h1) to 6 (h6). */
export type AttnScopeHeadingLevel = 1 | 2 | 3 | 4 | 5 | 6;
/** The element's colours: light, dark, or the system's (auto). */
export type AttnScopeTheme = 'light' | 'dark' | 'auto';

/** The attributes of <attn-scope>, each with its default (the attribute's text when it is absent). */
export interface AttnScopeAttributes {
  /** The query sentence (rows). Default 'The cat sat on the mat.' At most 64 tokens. */
  query: string;
  /** The key sentence (columns), for cross-attention; '' (default) = self-attention. */
  keys: string;
  /** A scoring function of scope.registry.scores. Default 'scaled-dot'. */
  score: ScoreName;
  /** Softmax temperature τ > 0. Default 1. */
  temperature: number;
  /** Number of heads, 1 to the vector dimension (100). Default 1. */
  heads: number;
  /** 'identity' (default) or 'random' (seeded W_q, W_k, W_v). */
  projection: Exclude<ProjectionName, 'user'>;
  /** Seed of the random projection and score weights, 0 to 4294967295. Default 1. */
  seed: number;
  /** Adds sinusoidal positional encodings (boolean attribute). Default false. */
  positional: boolean;
  /** 'none' (default) or 'causal'. */
  mask: MaskName;
  /** idw exponent p > 0. Default 2. */
  p: number;
  /** idw ε >= 0. Default 0.001. */
  eps: number;
  /** Kernels: 'auto' (default), 'simd' or 'scalar' (scope.variants.available). */
  variant: VariantName;
  /** Which figure(s). Default 'heatmap'. */
  view: AttnScopeView;
  /** Space-separated controls shown above the figure, or 'none'. Default 'score temperature'. */
  controls: string;
  /** The cell "why" explains, "row,column" from 0; '' (default): the first word's strongest key. */
  cell: string;
  /** Default 'auto' (follows the system). */
  theme: AttnScopeTheme;
  /** A caption under the figure, also its accessible name. Default ''. */
  caption: string;
  /** URL of a vocabulary file (docs/vocab-format.md); '' (default): the built-in 10,000 words (inlined in the classic script, a file of the package for the module). */
  vocab: string;
  /**
   * 'use-lite': the trained model's views (every layer and head, one head re-scored, knock-outs, the
   * embedding's move, rollout; docs/model.md) of `query` (and `keys` as a second sentence) instead of
   * the explorer's. '' (default): the explorer.
   */
  model: '' | 'use-lite';
  /** URL of the model's weights file (dist/use-lite.bin); default 'use-lite.bin' beside the page. */
  modelSrc: string;
  /**
   * With `model`: the head shown large, 'L.H' with layer and head counted from 0 as the API counts them
   * (the figures write "layer 1, head 1" for '0.0'). Default '0.0'. Mirrors the attribute `head`.
   */
  head: string;
  /** With `model`: the scoring function the head shown is re-scored with; 'scaled-dot' (default) is the model's own. Attribute `head-score`. */
  headScore: ScoreName;
  /** With `model`: that head's temperature τ, one of 2, 1, 0.5, 0.2, 0.1, 0.05 ('1', the default, is the model's own); a bounded score such as cosine needs a small τ to get sharp. Attribute `head-temperature`. */
  headTemperature: string;
  /** With `model`: the heads knocked out, 'L.H' labels (from 0) separated by commas; '' (default) none. Attribute `knock-out`. */
  knockOut: string;
  /**
   * The level of the figures' titles, 1 (h1) to 6 (h6). Default: one below the nearest heading before
   * the element when it is connected (2 with none), so the host page's outline never skips a level.
   * Reading gives the level in use; setting null returns to the derived level; a number outside 1–6
   * throws a RangeError (the attribute shows an error in the element and fires attn-error).
   */
  get headingLevel(): AttnScopeHeadingLevel;
  set headingLevel(level: AttnScopeHeadingLevel | null);
}

/** detail of `attn-ready`: the first result drawn. */
export interface AttnReadyDetail {
  /** The result drawn. */
  result: AttendResult;
}
/** detail of `attn-change`: which attributes changed, and the result drawn now. */
export interface AttnChangeDetail {
  /** The attributes (or element-held settings) that changed. */
  changed: string[];
  /** The result drawn now. */
  result: AttendResult;
}
/** detail of `attn-error`: what was wrong and what is allowed, and the attribute at fault. */
export interface AttnErrorDetail {
  /** What was wrong and what is allowed. */
  message: string;
  /** The attribute at fault, when one is. */
  attribute?: string;
}

/** The element's events, for typed addEventListener. */
export interface AttnScopeEventMap extends HTMLElementEventMap {
  /** The first figure is drawn. */
  'attn-ready': CustomEvent<AttnReadyDetail>;
  /** A change (attribute, property or control) was redrawn. */
  'attn-change': CustomEvent<AttnChangeDetail>;
  /** The figure cannot be drawn; the message is shown inside the element too. */
  'attn-error': CustomEvent<AttnErrorDetail>;
}

/**
 * The properties of <attn-scope> that mirror its attributes (setting one sets the attribute, and
 * the reverse): declaration merging gives the class every member of AttnScopeAttributes.
 */
export interface AttnScopeElement extends AttnScopeAttributes {}
/** <attn-scope>: a live attention figure; attributes (and the same-named properties) set its state. */
export declare class AttnScopeElement extends HTMLElement {
  /** The attributes the element watches (every attribute of AttnScopeAttributes). */
  static readonly observedAttributes: string[];
  /** Wasm memory in use (bytes) of the instance shared by every element with this vocabulary ('' = the built-in 10,000 words). */
  static memoryInUse(vocab?: string): Promise<number>;
  /**
   * The attnscope API object shared by every element with this vocabulary ('' = the built-in 10,000 words).
   * A URL's scope is disposed when the last element using it is removed from the page (or its vocab
   * changes): do not keep it past that.
   */
  static scope(vocab?: string): Promise<AttnScope>;
  /** The vocabularies held now: '' (the built-in one, always) and the resolved URLs connected elements use. */
  static vocabularies(): string[];

  // The attribute-mirroring properties (query, keys, score, …, vocab) come from AttnScopeAttributes,
  // merged in by the interface of the same name below: one list, with its docs and defaults.

  /** The last result drawn (null before attn-ready and while an attribute is invalid). */
  readonly result: AttendResult | null;
  /** The figure (the first of the view) as a PNG file, at 2× its size on screen. */
  exportPNG(): Promise<Blob>;
  /** The figure (the first of the view) as a standalone SVG file. */
  exportSVG(): Promise<Blob>;
  /** Draws every figure now (figures out of view otherwise wait for a scroll or an idle moment). */
  flush(): void;

  /** Typed for the element's own events; any other event as usual. */
  addEventListener<K extends keyof AttnScopeEventMap>(type: K, listener: (this: AttnScopeElement, ev: AttnScopeEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  /** Any other event. */
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  /** Typed for the element's own events; any other event as usual. */
  removeEventListener<K extends keyof AttnScopeEventMap>(type: K, listener: (this: AttnScopeElement, ev: AttnScopeEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  /** Any other event. */
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

/** Each view's figures, in order. */
export declare const VIEWS: Readonly<Record<AttnScopeView, readonly string[]>>;
/** Every control name, in the order shown. */
export declare const CONTROLS: readonly AttnScopeControl[];
/** Every attribute's default, as the attribute's text (null: a boolean attribute, absent). */
export declare const DEFAULTS: Readonly<Record<keyof AttnScopeAttributes, string | null>>;
/** The element class (import 'attnscope/element' also defines <attn-scope>). */
export default AttnScopeElement;

declare global {
  /** document.createElement('attn-scope') and querySelector('attn-scope') are typed. */
  interface HTMLElementTagNameMap {
    /** The <attn-scope> element. */
    'attn-scope': AttnScopeElement;
  }
}
