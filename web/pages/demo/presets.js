// The demo's example sentences (its presets; the last is the first visit's). Their words are all in the
// vocabulary the demo draws its first plots from (scripts/build-first-vocab.mjs reads this list at
// build time), so the examples are right before the 50,000 words arrive.
export const PRESETS = [
  { id: 'animal', label: 'The animal didn’t cross…',
    q: 'The animal didn\'t cross the street because it was too tired.', k: '' },
  { id: 'law', label: 'The law will never be perfect…',
    q: 'The law will never be perfect, but its application should be just.', k: '' },
  { id: 'paraphrase', label: 'Paraphrase pair: cat / kitten',
    q: 'The cat sat on the mat.', k: 'A kitten rested on the rug.' },
];
