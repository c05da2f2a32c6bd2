// attnscope/vocab-50k: the 50,000-word GloVe vocabulary (glove-50k.bin, 5.6 MB, PDDL 1.0) as an asset an
// app opts into. Importing this module is the opt-in: its literal new URL(..., import.meta.url)
// expressions make an app's bundler copy the file and its licence (glove.LICENSE), and the vocabulary
// 'default' (createAttnScope({ vocabulary: 'default' }), a scope's loadVocabulary()) then finds it. Nothing is
// downloaded until the vocabulary is asked for. The default export says where the files are:
// { file, url, license, licenseName }.
//   import 'attnscope/vocab-50k';
//   const scope = await createAttnScope({ preload: true });
import { optIn } from './scope-files.mjs';

const vocabulary = optIn({
  file: 'glove-50k.bin',
  url: new URL('./glove-50k.bin', import.meta.url),
  license: new URL('./glove.LICENSE', import.meta.url),
  licenseName: 'PDDL-1.0',
});
export default vocabulary;
