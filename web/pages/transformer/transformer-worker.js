// The transformer page's training, off the page's thread: a module worker holding the attnscope module
// (no vocabulary: the tasks make their own tokens) and a TransformerSession (session.js), answering the
// page (transformer.js) through comlink. Every call is short (a slice of training of ~30 ms), so a
// pause, a slider move or a cancel is answered within one slice. Typed arrays are transferred, not copied.
import * as Comlink from 'comlink';
import { transferable } from '../../shared/transfer.js';
import { createAttnScope } from 'attnscope';
import { TransformerSession } from './session.js';
import { TASK_NAMES, TASK_TITLES, CORPUS_FILE } from './tasks.js';

let session = null;

/** The characters task's text, fetched the first time that task is chosen (the offline copy serves it after). */
async function ensureText(task) {
  if (task !== 'characters' || session.text) return;
  const res = await fetch(new URL(CORPUS_FILE, import.meta.url));
  if (!res.ok) throw new Error(`the text of the characters task (${CORPUS_FILE}) could not be loaded: HTTP ${res.status}`);
  session.text = await res.text();
}

const api = {
  async init() {
    const scope = await createAttnScope({ locateFile: (path) => new URL(path, import.meta.url).href });
    session = new TransformerSession(scope);
    const tasks = TASK_NAMES.map((name) => ({ name, title: TASK_TITLES[name] }));
    return { scoreFunctions: scope.scoreFunctions.map((s) => ({ name: s.name, formula: s.formula })), tasks, isa: scope.variants.isa };
  },
  async defaults(task, seed) { await ensureText(task); return session.taskDefaults(task, seed); },
  async setup(o) { await ensureText(o.task); return session.setup(o); },
  train: (o) => transferable(session.train(o)),
  progress: (from, evalsFrom) => transferable(session.progress(from, evalsFrom)),
  view: (o) => transferable(session.view(o)),
  generate: (o) => transferable(session.generate(o)),
  save: () => transferable(session.save()),
  noteExample: () => session.noteExample(),
  async compareStart(o) { await ensureText(o.task); return session.compareStart(o); },
  // Copied, not transferred: the finished runs' arrays are sent again with every answer.
  compareAdvance: (budgetMs) => session.compareAdvance(budgetMs),
  compareCancel: () => session.compareCancel(),
};

Comlink.expose(api);
