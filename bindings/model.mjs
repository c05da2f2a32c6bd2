// attnscope/model: the trained model, Universal Sentence Encoder Lite (use-lite.bin, 14 MB, Apache-2.0),
// as an asset an app opts into. Importing this module is the opt-in: its two literal new URL(...,
// import.meta.url) expressions make an app's bundler (Vite, webpack, Parcel) copy the model and its
// licence into the app, and scope.loadModel() (and the <attn-scope> element's model view) then load it
// with no argument. Nothing is downloaded until loadModel() is called. The default export says where
// the files are: { file, url, license, licenseName }.
//   import 'attnscope/model';                  // or: import useLite from 'attnscope/model';
//   const model = await scope.loadModel();     //     scope.loadModel({ model: useLite.url })
import { optIn } from './scope-files.mjs';

const useLite = optIn({
  file: 'use-lite.bin',
  url: new URL('./use-lite.bin', import.meta.url),
  license: new URL('./use-lite.LICENSE', import.meta.url),
  licenseName: 'Apache-2.0',
});
export default useLite;
