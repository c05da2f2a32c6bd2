// What the pool (pool.mjs) and its workers (pool-worker.mjs) share about the wire: errors that keep
// their class and their structured form across it, and node's MessagePort seen as a comlink endpoint.
import { errorRecord } from './scope-plan.mjs';

const ERROR_CLASSES = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };
// The structured form of the errors that came through the wire (wireRecord), beside them.
const RECORDS = new WeakMap();

/**
 * The structured form an error came through the wire with: { name, message, code?, argument?, index?,
 * value? } (scope-plan.mjs, errorRecord), or undefined for an error that did not cross it.
 */
export function wireRecord(e) {
  return e !== null && typeof e === 'object' ? RECORDS.get(e) : undefined;
}

/**
 * comlink's 'throw' handler, but an error crosses the wire as its structured form (errorRecord) and
 * its stack, and comes out of it rebuilt from that form: the class it went in as (a RangeError stays
 * a RangeError: callers tell bad values from bad types by it), its message, and its code (wireRecord).
 */
export function errorTransfer(original) {
  return {
    canHandle: original.canHandle,
    serialize({ value }) {
      if (value instanceof Error) return [{ isError: true, value: { ...errorRecord(value), stack: value.stack } }, []];
      return [{ isError: false, value }, []];
    },
    deserialize(wire) {
      if (!wire.isError) throw wire.value;
      const { stack, ...record } = wire.value;
      const Class = Object.hasOwn(ERROR_CLASSES, record.name) ? ERROR_CLASSES[record.name] : Error;
      const e = new Class(record.message);
      if (e.name !== record.name) e.name = record.name;
      RECORDS.set(e, record);
      // The worker's stack says where the error was raised in the scope; the caller's own frames follow.
      if (stack) e.stack = `${stack}\n    (in an attnscope pool worker)\n${(new Error().stack || '').split('\n').slice(1).join('\n')}`;
      throw e;
    },
  };
}

/** A node worker_threads port (parentPort, or a Worker) as the endpoint comlink expects. */
export function nodeEndpoint(port) {
  const listeners = new WeakMap();
  return {
    postMessage: port.postMessage.bind(port),
    addEventListener(_, handler) {
      const l = (data) => ('handleEvent' in handler ? handler.handleEvent({ data }) : handler({ data }));
      port.on('message', l);
      listeners.set(handler, l);
    },
    removeEventListener(_, handler) {
      const l = listeners.get(handler);
      if (l) { port.off('message', l); listeners.delete(handler); }
    },
  };
}
