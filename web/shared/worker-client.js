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

/**
 * Asks the worker one request at a time, the newest state winning: the returned request() calls
 * ask() now, or — when an answer is still pending — once more after it, however many calls came
 * meanwhile (a slider dragged while the worker computes). An answer goes to take(answer) unless
 * token() changed while it was computed (the page started another run), an error to fail(error);
 * busy (a workerClient's) counts the wait. request.lastAt: performance.now() of its last call, for a
 * page that asks at most every so often while training.
 */
export function latestRequest({ ask, take, fail, busy, token = () => 0 }) {
  let running = false, again = false;
  const request = async () => {
    request.lastAt = performance.now();
    if (running) { again = true; return; }
    running = true;
    busy(1);
    try {
      do {
        again = false;
        const id = token();
        const answer = await ask();
        if (id === token()) take(answer);
      } while (again);
    } catch (e) {
      fail(e);
    } finally {
      running = false;
      busy(-1);
    }
  };
  request.lastAt = 0;
  return request;
}
