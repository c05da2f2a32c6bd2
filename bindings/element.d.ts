// Types of the <attn-scope> element: import 'attnscope/element' defines it.
import type { AttendResult, AttnScope, MaskName, ProjectionName, ScoreName, VariantName } from './attnscope.js';

export type AttnScopeView = 'heatmap' | 'lines' | 'both' | 'heads' | 'compare' | 'why' | 'scaling' | 'cosine-dot'
  | 'distance' | 'hull';
export type AttnScopeControl = 'query' | 'keys' | 'score' | 'temperature' | 'heads' | 'projection' | 'seed' | 'positional'
  | 'mask' | 'p' | 'eps' | 'variant' | 'view';
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
  /** URL of a vocabulary file (docs/vocab-format.md); '' (default): the inlined 10,000 words. */
  vocab: string;
}

export interface AttnReadyDetail { result: AttendResult }
export interface AttnChangeDetail { changed: string[]; result: AttendResult }
export interface AttnErrorDetail { message: string; attribute?: string }

export interface AttnScopeEventMap extends HTMLElementEventMap {
  'attn-ready': CustomEvent<AttnReadyDetail>;
  'attn-change': CustomEvent<AttnChangeDetail>;
  'attn-error': CustomEvent<AttnErrorDetail>;
}

export declare class AttnScopeElement extends HTMLElement implements AttnScopeAttributes {
  static readonly observedAttributes: string[];
  /** Wasm memory in use (bytes) of the instance shared by every element with this vocabulary ('' = inlined). */
  static memoryInUse(vocab?: string): Promise<number>;
  /** The attnscope API object shared by every element with this vocabulary ('' = inlined). */
  static scope(vocab?: string): Promise<AttnScope>;

  query: string;
  keys: string;
  score: ScoreName;
  temperature: number;
  heads: number;
  projection: Exclude<ProjectionName, 'user'>;
  seed: number;
  positional: boolean;
  mask: MaskName;
  p: number;
  eps: number;
  variant: VariantName;
  view: AttnScopeView;
  controls: string;
  cell: string;
  theme: AttnScopeTheme;
  caption: string;
  vocab: string;

  /** The last result drawn (null before attn-ready and while an attribute is invalid). */
  readonly result: AttendResult | null;
  /** The figure (the first of the view) as a PNG file, at 2× its size on screen. */
  exportPNG(): Promise<Blob>;
  /** The figure (the first of the view) as a standalone SVG file. */
  exportSVG(): Promise<Blob>;
  /** Draws every figure now (figures out of view otherwise wait for a scroll or an idle moment). */
  flush(): void;

  addEventListener<K extends keyof AttnScopeEventMap>(type: K, listener: (this: AttnScopeElement, ev: AttnScopeEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof AttnScopeEventMap>(type: K, listener: (this: AttnScopeElement, ev: AttnScopeEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

export declare const VIEWS: Readonly<Record<AttnScopeView, readonly string[]>>;
export declare const CONTROLS: readonly AttnScopeControl[];
export declare const DEFAULTS: Readonly<Record<keyof AttnScopeAttributes, string | null>>;
export default AttnScopeElement;

declare global {
  interface HTMLElementTagNameMap {
    'attn-scope': AttnScopeElement;
  }
}
