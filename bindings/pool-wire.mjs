// What the pool (pool.mjs) and its workers (pool-worker.mjs) share about the wire: errors that keep
// their class across it, and node's MessagePort seen as a comlink endpoint.

const ERROR_CLASSES = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };

/**
 * comlink's 'throw' handler, but an error comes out of the wire as the class it went in as (a
 * RangeError stays a RangeError: callers tell bad values from bad types by it), with its message,
 * and the pool's mark of a non-finite Q element (qElement).
 */
export function errorTransfer(original) {
  return {
    canHandle: original.canHandle,
    serialize({ value }) {
      if (value instanceof Error) {
        return [{ isError: true, value: { name: value.name, message: value.message, stack: value.stack, qElement: !!value.qElement } }, []];
      }
      return [{ isError: false, value }, []];
    },
    deserialize(wire) {
      if (!wire.isError) throw wire.value;
      const { name, message, stack, qElement } = wire.value;
      const Class = Object.hasOwn(ERROR_CLASSES, name) ? ERROR_CLASSES[name] : Error;
      const e = new Class(message);
      if (e.name !== name) e.name = name;
      if (qElement) Object.defineProperty(e, 'qElement', { value: true });
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
