// The names the Embind glue (bindings/embind-*.cpp) gives the JS layer: every class's methods and
// every value object's fields, read from the built module itself. The JS layer (bindings/scope-*.mjs)
// calls these by name, and a name that changes in the C++ registration only shows up as a call that
// fails at run time; here it fails as a list that differs. A member added on purpose is added below.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { DIST } from './helpers.mjs';

const CLASSES = {
  HeadTrainer: ['cross', 'evaluate', 'examples', 'gradients', 'init', 'layoutJson', 'losses', 'paramCount', 'readParams', 'reset', 'step', 'stepCost', 'weightsOf'],
  ModelState: ['encode', 'headDim', 'heads', 'layers', 'load', 'maxTokens', 'outputDim', 'piecesJson', 'vocabularyRows'],
  ModelTrainerState: ['evaluate', 'init', 'lastGradNorm', 'losses', 'step'],
  ScopeState: ['address', 'attendKept', 'attendOutput', 'embed', 'loadVocabulary', 'nearestJson', 'releaseKept', 'tokenizeJson', 'vocabularyDim', 'vocabularySize', 'vocabularyWord'],
  TransformerState: ['attentionGradients', 'configJson', 'create', 'encode', 'encodePair', 'load', 'loss', 'lossPairs', 'params', 'save', 'setTensor', 'setTokens', 'tensorsJson', 'tokens'],
};
// In the order of their registration (the order Embind converts them in).
const VALUE_OBJECTS = {
  AttendOptions: ['score', 'params', 'temperature', 'heads', 'projection', 'seed', 'positional', 'mask', 'variant', 'maxTokens', 'experimentalScaledOutput',
    'Wq', 'Wk', 'Wv', 'Wo', 'dHead', 'dValue', 'dOut', 'headBegin', 'headEnd'],
  ScoreParams: ['W', 'W1', 'W2', 'v', 'hidden', 'Wa', 'maxKeys', 'p', 'eps'],
  TrainerOptions: ['dIn', 'dHead', 'positions', 'dPos', 'maxLen', 'hidden', 'batch', 'score', 'p', 'eps', 'temperature', 'learnedTemperature', 'learningRate',
    'seed', 'mask', 'variant', 'output'],
};
const FUNCTIONS = ['_attentionBackward', '_attentionFlow', '_attentionFlowCost', '_backwardCost', '_headSummaries', '_loadAttentions', '_memoryInUse',
  '_registryJson', '_resolvedVariant', '_rollout', '_rolloutCost', '_safeRowRange', '_simdIsa', '_softmax'];
const ENUMS = ['Mask', 'Projection', 'Score', 'Variant'];

const glue = (await import(pathToFileURL(join(DIST, 'attnscope-wasm.mjs')).href)).default;
const M = await glue({ wasmBinary: readFileSync(join(DIST, 'attnscope.wasm')) });

const isClass = (C) => typeof C === 'function' && C.prototype && typeof C.prototype.isAliasOf === 'function';
// Embind's own members of every class handle (ClassHandle) and of a function.
const HANDLE = new Set(['constructor']);
const FUNCTION_OWN = new Set([...Object.getOwnPropertyNames(function f() {}), 'argCount']);

// The fields a value object's conversion asks for: Embind tests `name in o` for each field before it
// reads any, so a proxy that answers yes records them all, then stops the call at the first read.
function fieldsOf(call) {
  const asked = [];
  const stop = new Error('stop');
  const probe = new Proxy({}, {
    has: (_, key) => (asked.push(key), true),
    get: (_, key) => { if (typeof key === 'string') throw stop; },
  });
  assert.throws(() => call(probe), (e) => e === stop);
  return asked;
}

test('every Embind class has exactly its methods, and no static members', () => {
  const classes = Object.keys(M).filter((k) => isClass(M[k])).sort();
  assert.deepEqual(classes, Object.keys(CLASSES).sort(), 'the classes');
  for (const [name, methods] of Object.entries(CLASSES)) {
    assert.deepEqual(Object.getOwnPropertyNames(M[name].prototype).filter((m) => !HANDLE.has(m)).sort(), methods, `${name}'s methods`);
    assert.deepEqual(Object.getOwnPropertyNames(M[name]).filter((m) => !FUNCTION_OWN.has(m)), [], `${name}'s static members`);
  }
});

test('every value object accepts exactly its fields', () => {
  const scope = new M.ScopeState();
  const trainer = new M.HeadTrainer();
  try {
    assert.deepEqual(fieldsOf((o) => scope.attendKept('', '', false, o)), VALUE_OBJECTS.AttendOptions, 'AttendOptions');
    assert.deepEqual(fieldsOf((o) => M._attentionBackward(0, 0, 0, 1, 1, 1, 1, 1, M.Score.dot, M.Variant.auto, o, 1, M.Mask.none,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), VALUE_OBJECTS.ScoreParams, 'ScoreParams');
    assert.deepEqual(fieldsOf((o) => trainer.init(o, 0, 0, 0, 0, 0, 0, 0, 0)), VALUE_OBJECTS.TrainerOptions, 'TrainerOptions');
  } finally {
    scope.delete();
    trainer.delete();
  }
});

test('the free functions and enums are there', () => {
  for (const f of FUNCTIONS) assert.equal(typeof M[f], 'function', f);
  for (const e of ENUMS) assert.equal(typeof M[e], 'function', e);
});
