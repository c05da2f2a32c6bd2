// scope.loadModel() keeps a model downloaded over http(s) in the Cache API store 'attnscope-models' and
// reads it from there next time, with no request. Node has no Cache API: the tests give it one (a Map
// behind caches.open(), with the spec's match/put/delete on Request URLs), serve dist/use-lite.bin on
// 127.0.0.1 and count the requests. The same path runs in Chromium with its real store in
// tests/js/package.test.mjs (the app that imports 'attnscope/model').
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { DIST, loadScope } from './helpers.mjs';

const MODEL = readFileSync(join(DIST, 'use-lite.bin'));
const TEXT = 'The animal didn\'t cross the street because it was too tired.';
let server, base, requests, scope, stores, failPut;

/** A Cache API of Maps: caches.open(name) → { match, put, delete }, keyed by URL. */
function fakeCaches() {
  return {
    async open(name) {
      if (!stores.has(name)) stores.set(name, new Map());
      const map = stores.get(name);
      return {
        async match(key) { const hit = map.get(String(key)); return hit ? new Response(hit) : undefined; },
        async put(key, response) {
          if (failPut) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
          map.set(String(key), new Uint8Array(await response.arrayBuffer()));
        },
        async delete(key) { return map.delete(String(key)); },
      };
    },
  };
}

before(async () => {
  server = createServer((req, res) => {
    requests.push(req.url);
    if (req.url === '/use-lite.bin') { res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': MODEL.length }); res.end(MODEL); return; }
    res.writeHead(404); res.end('not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  scope = await loadScope();
  globalThis.caches = fakeCaches();
});
after(async () => {
  delete globalThis.caches;
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => { requests = []; stores = new Map(); failPut = false; });

async function load(options) {
  const model = await scope.loadModel(options);
  try {
    return { from: model.loadedFrom, attentions: Array.from(model.encode(TEXT).attentions.subarray(0, 64)) };
  } finally {
    model.dispose();
  }
}

test('the first load downloads and keeps the model; the next reads it from the store with no request, same numbers', async () => {
  const first = await load({ model: `${base}/use-lite.bin` });
  assert.equal(first.from, 'network');
  assert.deepEqual(requests, ['/use-lite.bin']);
  assert.deepEqual([...stores.keys()], ['attnscope-models']);
  assert.ok(Buffer.from(stores.get('attnscope-models').get(`${base}/use-lite.bin`)).equals(MODEL), 'the store holds the file as served');
  const progress = [];
  const second = await load({ model: new URL(`${base}/use-lite.bin`), onProgress: (loaded, total) => progress.push([loaded, total]) });
  assert.equal(second.from, 'cache');
  assert.deepEqual(requests, ['/use-lite.bin'], 'no second request');
  assert.deepEqual(progress, [[MODEL.length, MODEL.length]]);
  assert.deepEqual(second.attentions, first.attentions);
});

test('cache: false downloads every time and keeps nothing', async () => {
  assert.equal((await load({ model: `${base}/use-lite.bin`, cache: false })).from, 'network');
  assert.equal((await load({ model: `${base}/use-lite.bin`, cache: false })).from, 'network');
  assert.equal(requests.length, 2);
  assert.equal(stores.size, 0);
});

test('a damaged entry is dropped and the model downloaded again; a store that refuses to keep it is no error', async () => {
  const store = await caches.open('attnscope-models');
  await store.put(`${base}/use-lite.bin`, new Response(new TextEncoder().encode('<!doctype html><title>not a model</title>')));
  assert.equal((await load({ model: `${base}/use-lite.bin` })).from, 'network');
  assert.equal(requests.length, 1);
  assert.ok(Buffer.from(stores.get('attnscope-models').get(`${base}/use-lite.bin`)).equals(MODEL), 'replaced by the model');
  stores.clear();
  failPut = true;
  assert.equal((await load({ model: `${base}/use-lite.bin` })).from, 'network');
  assert.equal((await load({ model: `${base}/use-lite.bin` })).from, 'network', 'nothing was kept, so it downloads again');
});

test('a URL that is not a model is refused before it is kept; bytes and files say where they came from', async () => {
  await assert.rejects(scope.loadModel({ model: `${base}/missing.bin` }), /server answered 404/);
  assert.equal(stores.get('attnscope-models')?.size ?? 0, 0);
  assert.equal((await load({ model: new Uint8Array(MODEL) })).from, 'bytes');
  assert.equal((await load()).from, 'file', 'the package\'s own file, read from disk by Node');
  await assert.rejects(scope.loadModel({ cache: 'yes' }), { name: 'TypeError', message: /^options\.cache: expected true .*'attnscope-models'.* or false, got/ });
});
