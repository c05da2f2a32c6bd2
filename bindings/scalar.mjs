// attnscope/scalar: the build for engines without WebAssembly SIMD (attnscope-scalar.wasm, 0.56 MB), as an
// asset an app opts into. Every engine released since 2023 runs the SIMD build (or the relaxed-SIMD one), so
// the core names only those and a bundled app carries this file only when it imports this module; then
// createAttnScope() falls back to it where SIMD is missing (and createAttnScope({ simd: false }) finds it).
// Where nothing is bundled (Node, a CDN, files copied beside an esbuild bundle) it is found beside the
// other wasm without the import. The default export says where it is: { file, url, license, licenseName }.
//   import 'attnscope/scalar';
import { optIn } from './scope-files.mjs';

const scalar = optIn({
  file: 'attnscope-scalar.wasm',
  url: new URL('./attnscope-scalar.wasm', import.meta.url),
  license: new URL('./attnscope.LICENSE', import.meta.url),   // the package's own code: its LICENSE (MIT)
  licenseName: 'MIT',
});
export default scalar;
