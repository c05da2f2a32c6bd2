// attnscope/vocab-10k: the 10,000-word GloVe vocabulary (glove-10k.bin, 1.1 MB, PDDL 1.0) as an asset an
// app opts into. Importing this module is the opt-in: its literal new URL(..., import.meta.url)
// expressions make an app's bundler copy the file and its licence (glove.LICENSE), and the vocabulary
// 'small' (createAttnScope({ vocabulary: 'small' }), a scope's loadVocabulary()) then finds it. Nothing is
// downloaded until the vocabulary is asked for. The default export says where the files are:
// { file, url, license, licenseName }.
//   import 'attnscope/vocab-10k';
//   const scope = await createAttnScope({ vocabulary: 'small', preload: true });
import { optIn } from './scope-files.mjs';

const vocabulary = optIn({
  file: 'glove-10k.bin',
  url: new URL('./glove-10k.bin', import.meta.url),
  license: new URL('./glove.LICENSE', import.meta.url),
  licenseName: 'PDDL-1.0',
});
export default vocabulary;
