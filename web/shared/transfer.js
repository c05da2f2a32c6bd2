// A worker's answer through comlink with every typed array in it transferred, not copied (each buffer
// once). Only for answers whose arrays the worker does not send again: a transferred buffer is detached.
import * as Comlink from 'comlink';

export function transferable(value) {
  const list = [];
  const walk = (v) => {
    if (ArrayBuffer.isView(v)) { list.push(v.buffer); return; }
    if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(value);
  return Comlink.transfer(value, [...new Set(list)]);
}
