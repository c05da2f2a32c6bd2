// TensorFlow.js on its wasm backend as the benchmarks compare against it (bench/attention-node.mjs,
// bench/tfjs-parts.mjs): XNNPACK with SIMD, one thread, the backend's wasm files from its npm package.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Resolves { tf, tfwasm, tfInfo } once TF.js is ready on the wasm backend; tfInfo says what it runs on. */
export async function tfjsWasm() {
  const tf = require('@tensorflow/tfjs-core');
  const tfwasm = require('@tensorflow/tfjs-backend-wasm');
  tfwasm.setWasmPaths(join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/');
  tfwasm.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  const tfInfo = {
    version: tf.version_core,
    backend: tf.getBackend(),
    simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
    threads: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'),
    threadsCount: tfwasm.getThreadsCount(),
  };
  return { tf, tfwasm, tfInfo };
}
