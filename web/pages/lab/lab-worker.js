// The lab's training, off the page's thread: a module worker (the same pattern as the demo's
// web/pages/demo/demo-worker.js) that holds the attnscope module, the corpus's tasks and the trainers (lab/session.js),
// and answers the page (web/pages/lab/lab.js) through comlink. Every call is short (a slice of training of
// ~16–30 ms at most), so a pause, a slider move or a cancel is answered within one slice.
import * as Comlink from 'comlink';
import { createAttnScope } from 'attnscope';
import corpus from '../../../lab/corpus.json';
import { LabSession } from '../../../lab/session.js';

let session = null;

const api = {
  /** Loads the module and the vocabulary; onProgress(loaded, total) as the vocabulary downloads. */
  async init(onProgress) {
    const scope = await createAttnScope({
      preload: true,
      locateFile: (path) => new URL(path, import.meta.url).href,
      onProgress: onProgress ? (loaded, total) => { onProgress(loaded, total); } : undefined,
    });
    session = new LabSession(scope, corpus);
    return { scoreFunctions: scope.scoreFunctions.map((s) => ({ name: s.name, formula: s.formula })), isa: scope.variants.isa };
  },
  setup: (o) => session.setup(o),
  warmUp: (o) => session.warmUp(o),
  train: (o) => session.train(o),
  view: (o) => session.view(o),
  compareStart: (o) => session.compareStart(o),
  compareAdvance: (budgetMs) => session.compareAdvance(budgetMs),
  compareCancel: () => session.compareCancel(),
};

Comlink.expose(api);
