// A page's module worker, as the lab (web/pages/lab) and the transformer page use theirs: wrapped by
// comlink, with body.computing set while the page waits for an answer (the e2e tests wait on that class,
// as on the demo's). The page makes the Worker itself — `new Worker(new URL('…', import.meta.url), …)`
// must stay in the page's file for bundlers to find the worker — and hands it here.
import * as Comlink from 'comlink';

/**
 * { worker, api, busy(delta), call(name, ...args) } for `worker`. busy(+1 / −1) counts what the page
 * waits for (busy(0) only re-reads `alsoBusy`); body.computing is on while the count is above 0 or
 * alsoBusy() is true (a page that trains in a loop of calls: its playing flag). call(name, ...) is
 * api[name](...) counted as busy until it answers.
 */
export function workerClient(worker, { alsoBusy = () => false } = {}) {
  const api = Comlink.wrap(worker);
  let pending = 0;
  const busy = (delta) => {
    pending += delta;
    document.body.classList.toggle('computing', pending > 0 || alsoBusy());
  };
  const call = async (name, ...args) => {
    busy(1);
    try { return await api[name](...args); } finally { busy(-1); }
  };
  return { worker, api, busy, call };
}
