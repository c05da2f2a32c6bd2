// attnscope: the public JS API over the wasm module, shared by the split and single-file builds (see attnscope.d.ts for every shape).
// This layer validates arguments (errors name the argument and the fix), copies typed arrays into
// wasm memory and frees them in `finally`, and hands back copies, never views of the wasm heap.
//
// Names (scoring functions, variants, masks, projections, token kinds) come from the registry the
// wasm module carries (src/attnscope/registry.hpp), read once per instance: nothing here lists them.
// They cross the boundary as the module's Embind enums of the same lists, looked up by name.
// One wasm instance can hold many scopes: each AttnScope owns a ScopeState (its vocabulary) in the
// instance; scope.newScope() makes another on the same instance.
//
// This file makes the instance and the first scope (createScopeWith); the layer's other files, by concern:
//   scope-assets.mjs    locating and loading the wasm, vocabularies and model files; engineHasSimd
//   scope-checks.mjs    argument validation (numbers, enums, typed arrays, text, option objects)
//   scope-options.mjs   the module's registry (names, enums) and one check per option kind
//   scope-class.mjs     the AttnScope class: memory helpers and the calls on your own vectors
//   scope-text.mjs      tokenize, embed, nearest, attend (the sentence pipeline)
//   scope-model.mjs     loadModel and the Model (encode, similarity)
//   scope-imported.mjs  loadAttentions and rollout, attentionFlow, headSummaries
//   scope-trainer.mjs   the head Trainer (createTrainer)
//   scope-transformer.mjs  transformers from a config (createModel): parameters, encodeIds, lossAndGradients
//   scope-plan.mjs      the checks of the calls on your own vectors, and the pool's seam: plans, runPlan, error records

import { engineHasRelaxedSimd, engineHasSimd, readUrl, startsWith, toUrl, WASM_MAGIC } from './scope-assets.mjs';
import { checkInt, checkKnownKeys, describe } from './scope-checks.mjs';
import { Scope, scopeOn } from './scope-class.mjs';
import { enumsOf, listsOf, registryOf } from './scope-options.mjs';
import { optInHint } from './scope-files.mjs';

/**
 * Creates an AttnScope: locates, fetches and checks the wasm, instantiates it, and prepares the
 * vocabulary: loaded now only when its bytes are at hand (the caller's, the single-file build's
 * inlined words) or options.preload asks; otherwise by scope.loadVocabulary(), on which the calls
 * that need it (attend, embed, nearest, tokenize) insist. The entry points say where everything comes from:
 *   build.file(name)      → the default URL of a package file (from the entry's literal new URL
 *                           expressions, which bundlers rewrite), or null when that entry has none
 *   build.loadFactory(kind) → Promise<the Emscripten module factory>; kind 'relaxed' | 'simd' | 'scalar'
 *   build.wasmFile(kind)  → the wasm file's name, or null when the factory has it inlined
 *   build.relaxed         → true when the build ships a relaxed-SIMD module
 *   build.smallVocabulary → () => Uint8Array of the inlined 10,000-word vocabulary (single-file build)
 *   build.optional(name)  → true for a data file an app opts into (scope-files.mjs): looked for beside
 *                           the wasm when the app has not
 */
export async function createScopeWith(build, options = {}) {
  checkKnownKeys('options', options, ['locateFile', 'wasmBinary', 'vocabulary', 'preload', 'simd', 'onProgress', 'sharing']);
  if (options.sharing !== undefined) {
    if (!(options.sharing instanceof Scope)) throw new TypeError(`options.sharing: expected an AttnScope to share a wasm instance with, got ${describe(options.sharing)}`);
    const other = Object.keys(options).filter((k) => !['sharing', 'vocabulary', 'preload', 'onProgress'].includes(k));
    if (other.length) throw new TypeError(`options.${other[0]}: not used with options.sharing (the instance is already loaded); give only vocabulary, preload and onProgress`);
    return options.sharing.newScope({ vocabulary: options.vocabulary, preload: options.preload, onProgress: options.onProgress });
  }
  for (const key of ['locateFile', 'onProgress']) {
    if (options[key] !== undefined && typeof options[key] !== 'function') throw new TypeError(`options.${key}: expected a function, got ${describe(options[key])}`);
  }
  // Which wasm: the relaxed-SIMD build where the engine and the build have it, else SIMD, else scalar;
  // options.simd: true (plain SIMD: bit for bit the numbers of every SIMD engine), 'relaxed' or false.
  const s = options.simd;
  if (!(s === undefined || s === true || s === false || s === 'relaxed'))
    throw new TypeError(`options.simd: expected true, false or 'relaxed' (or leave it unset), got ${describe(s)}`);
  if ((s === true || s === 'relaxed') && !engineHasSimd()) throw new Error('options.simd: this engine has no WebAssembly SIMD; leave simd unset to fall back to scalar');
  if (s === 'relaxed' && !build.relaxed) throw new Error("options.simd: 'relaxed': this build has no relaxed-SIMD module (the single-file build carries only the SIMD one); import 'attnscope'");
  if (s === 'relaxed' && !engineHasRelaxedSimd()) throw new Error("options.simd: 'relaxed': this engine has no WebAssembly relaxed SIMD (node 20 needs --experimental-wasm-relaxed-simd); leave simd unset to pick the fastest build it has");
  const kind = s === 'relaxed' ? 'relaxed' : s === true ? 'simd' : s === false ? 'scalar'
    : !engineHasSimd() ? 'scalar' : build.relaxed && engineHasRelaxedSimd() && !options.wasmBinary ? 'relaxed' : 'simd';
  const simd = kind !== 'scalar';
  const wasmName = build.wasmFile(kind);
  // Where the package's files are: the chosen wasm's URL, or (the scalar build, which an app opts into)
  // the SIMD build's, beside which the others sit where nothing renamed them.
  const reference = build.file('attnscope.wasm');
  const ownUrl = build.file(wasmName || 'attnscope.wasm');
  const wasmDefault = ownUrl || reference;
  const referenceName = ownUrl ? wasmName : 'attnscope.wasm';
  const folder = wasmDefault ? new URL('./', wasmDefault).href : '';
  // A data file the app did not opt into (scope-files.mjs): looked for beside the wasm, where the
  // package's files are in Node, on a CDN or copied next to a bundle. A bundler that renamed the wasm
  // copied only what the app imports: there is nothing beside it, and the error says what to import.
  const notOptedIn = (file) => !options.locateFile && !build.file(file) && !!build.optional?.(file);
  const locate = async (file) => {
    if (options.locateFile) return toUrl(options.locateFile(file, folder), `locateFile('${file}')`);
    const url = build.file(file);
    if (url) return url;
    if (notOptedIn(file) && wasmDefault) {
      if (referenceName && wasmDefault.pathname.endsWith(`/${referenceName}`)) return new URL(file, wasmDefault);
      throw new Error(`attnscope: ${optInHint(file)} (this app was bundled: its bundler copied ${referenceName} as ` +
        `${wasmDefault.pathname.split('/').pop()} and no file the app did not import)`);
    }
    throw new TypeError(`options.locateFile: this build does not ship ${file}; pass locateFile to say where it is`);
  };
  const factory = await build.loadFactory(kind);
  const wasmFile = wasmName;
  const moduleArgs = {};
  if (options.wasmBinary !== undefined) {
    const w = options.wasmBinary;
    if (!(w instanceof ArrayBuffer || w instanceof Uint8Array)) throw new TypeError(`options.wasmBinary: expected an ArrayBuffer or Uint8Array, got ${describe(w)}`);
    if (!startsWith(new Uint8Array(w), WASM_MAGIC.bytes)) throw new TypeError(`options.wasmBinary: expected ${WASM_MAGIC.kind}, got ${describe(w)} starting ${Array.from(new Uint8Array(w).subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ')}`);
    moduleArgs.wasmBinary = w;
  } else if (wasmFile) {
    moduleArgs.wasmBinary = await readUrl(await locate(wasmFile), { what: wasmFile, expect: WASM_MAGIC });
  }
  const module = await factory(moduleArgs);
  const registry = registryOf(module);
  const enums = enumsOf(module, registry);
  const instance = {
    module, registry, enums, lists: listsOf(registry), locate,
    // What each variant name runs as in this build: fixed per instance, so asked once here rather
    // than on every call (each Embind call costs about a microsecond without dynamic code).
    resolvedVariants: Object.freeze(Object.fromEntries(Object.entries(enums.variant).map(([n, e]) => [n, module._resolvedVariant(e)]))),
    // Which wasm runs: 'relaxed-simd', 'simd' or 'scalar' (options.wasmBinary: as options.simd says).
    build: kind === 'relaxed' ? 'relaxed-simd' : kind,
    defaultVocabulary: build.smallVocabulary ? 'small' : 'default',
    smallVocabulary: build.smallVocabulary ?? null,
    canLocate: (file) => !!options.locateFile || !!build.file(file) || !!build.optional?.(file),
    // What a failed load of a package file says to do: the import that opts into it, when the app has not.
    fixFor: (file) => (notOptedIn(file) ? `${optInHint(file)}; or say where it is with createAttnScope({ locateFile })` : undefined),
  };
  return scopeOn(instance, options.vocabulary, { preload: options.preload, onProgress: options.onProgress });
}

export { engineHasRelaxedSimd, engineHasSimd };
export { optedInFiles, optIn } from './scope-files.mjs';
export { checkKnownKeys as checkOptionKeys, checkInt as checkInteger, describe as describeValue, toUrl as toAbsoluteUrl };
