// The import graph of web/, lab/ and bindings/: no circle, and every import points down the layers
//
//   web/pages/<room>/  (a page: only its own folder's files)   web/element/  (the <attn-scope> element)
//                    \                                          /
//                     web/shared/  (figures, computations, worker clients, page helpers)
//                         |
//                     lab/  (the lab's models and CSV text: no DOM, imports nothing of web/)
//                         |
//                     bindings/  (the npm layer, imported as 'attnscope')  →  the wasm (generated files)
//
// A file may import files of its own layer (a page: of its own room) and of the layers below it; any
// other import fails, and so does any circle of files. The edges are every static `import … from` and
// `export … from`, `import()` with a literal specifier, and `new URL('…', import.meta.url)` (a module
// worker, the service worker), read from the code with its comments removed (esbuild's transform).
// Bare specifiers are packages (d3, comlink) or the build's virtual modules, except 'attnscope': the
// bindings. Every file of web/ belongs to a room, web/shared/ or web/element/; every room is a page of
// scripts/pages.mjs and every entry's files are in its room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { transformSync } from 'esbuild';
import { ROOT } from './helpers.mjs';
import { PAGES, PAGES_DIR, SHARED_DIR, roomFile } from '../../scripts/pages.mjs';

const FOLDERS = ['web', 'lab', 'bindings'];
const CODE = /\.m?js$/;

/** The layer of a file (a path from the root), or null when it belongs to none. */
export function layerOf(file) {
  const room = new RegExp(`^${PAGES_DIR}/([^/]+)/`).exec(file);
  if (room) return { name: `page ${room[1]}`, rank: 4, room: room[1] };
  if (file.startsWith(`${SHARED_DIR}/`)) return { name: 'web/shared', rank: 3 };
  if (file.startsWith('web/element/')) return { name: 'web/element', rank: 4 };
  if (file.startsWith('lab/')) return { name: 'lab', rank: 2 };
  if (file.startsWith('bindings/')) return { name: 'bindings', rank: 1 };
  if (file === 'wasm') return { name: 'wasm', rank: 0 };
  return null;
}

/** Whether `from` may import `to`: its own layer (a page: its own room), or any layer below it. */
export function allowed(from, to) {
  if (from.name === to.name) return true;
  return to.rank < from.rank;
}

/** The specifiers a module names: [{ spec, kind }] (kind: 'import' or 'url'). */
export function specifiersOf(source) {
  const code = transformSync(source, { loader: 'js', legalComments: 'none' }).code;
  const out = [];
  const q = `(["'\`])([^"'\`]+)\\1`;
  const comments = '(?:\\s*/\\*[\\s\\S]*?\\*/)*\\s*';
  for (const re of [
    new RegExp(`^\\s*(?:import|export)\\b[^;]*?\\bfrom\\s*${q}`, 'gm'),      // import … from 'x', export … from 'x'
    new RegExp(`^\\s*import\\s*${q}`, 'gm'),                                   // import 'x'
    new RegExp(`\\bimport\\(${comments}${q}${comments}[,)]`, 'g'),             // import('x')
  ]) for (const m of code.matchAll(re)) out.push({ spec: m[2], kind: 'import' });
  for (const m of code.matchAll(new RegExp(`\\bnew URL\\(\\s*${q}\\s*,\\s*import\\.meta\\.url\\s*\\)`, 'g'))) out.push({ spec: m[2], kind: 'url' });
  return out;
}

/**
 * The graph of the folders' code: { files, edges: Map(file → [{ to, spec }]), problems } with paths from
 * the root; 'wasm' stands for the build's generated files the bindings load.
 */
export function importGraph(root = ROOT, folders = FOLDERS) {
  const files = folders.flatMap((folder) => readdirSync(join(root, folder), { recursive: true })
    .map((f) => `${folder}/${f}`.split('\\').join('/'))
    .filter((f) => CODE.test(f) && statSync(join(root, f)).isFile())).sort();
  const edges = new Map();
  const problems = [];
  for (const file of files) {
    const list = [];
    let specs;
    try { specs = specifiersOf(readFileSync(join(root, file), 'utf8')); } catch (e) { problems.push(`${file}: not read (${e.message.split('\n')[0]})`); continue; }
    for (const { spec, kind } of specs) {
      if (spec === 'attnscope') { list.push({ to: 'bindings/attnscope.mjs', spec }); continue; }
      const relativeSpec = spec.startsWith('./') || spec.startsWith('../') || (kind === 'url' && /^[\w.-]+$/.test(spec));
      if (!relativeSpec) continue;                        // a package ('d3-scale', 'comlink') or the build's 'virtual:…'
      const target = relative(root, resolve(root, dirname(file), spec)).split('\\').join('/');
      if (existsSync(join(root, target)) && statSync(join(root, target)).isFile()) { list.push({ to: target, spec }); continue; }
      if (file.startsWith('bindings/')) { list.push({ to: 'wasm', spec }); continue; }     // attnscope-wasm.mjs, the .wasm, …
      if (kind === 'import' || CODE.test(spec)) problems.push(`${file}: '${spec}' names no file (${target})`);
    }
    edges.set(file, list);
  }
  return { files, edges, problems };
}

/** Every import against the layers, as text. */
export function layerViolations({ files, edges }) {
  const out = [];
  for (const file of files) {
    const from = layerOf(file);
    if (!from) { out.push(`${file} belongs to no layer: a page's file goes in ${PAGES_DIR}/<room>/, what pages share in ${SHARED_DIR}/`); continue; }
    for (const { to, spec } of edges.get(file) || []) {
      const layer = layerOf(to);
      if (!layer) { out.push(`${file} imports ${to}, which belongs to no layer`); continue; }
      if (!allowed(from, layer)) out.push(`${file} (${from.name}) imports ${to} (${layer.name}) as '${spec}': against the layers`);
    }
  }
  return out;
}

/** Every circle of files (strongly connected components of more than one file, or a file importing itself). */
export function circles({ files, edges }) {
  const index = new Map(), low = new Map(), stack = [], on = new Set(), found = [];
  let next = 0;
  const visit = (v) => {    // Tarjan's algorithm, recursive: the graph has a few hundred files
    index.set(v, next); low.set(v, next); next++;
    stack.push(v); on.add(v);
    for (const { to } of edges.get(v) || []) {
      if (!index.has(to)) { visit(to); low.set(v, Math.min(low.get(v), low.get(to))); }
      else if (on.has(to)) low.set(v, Math.min(low.get(v), index.get(to)));
    }
    if (low.get(v) === index.get(v)) {
      const scc = [];
      let w;
      do { w = stack.pop(); on.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1 || (edges.get(v) || []).some((e) => e.to === v)) found.push(scc.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

test('the import graph is read: static imports, import() with a literal, new URL(…, import.meta.url); comments are not code', () => {
  const specs = specifiersOf(`
    // import { nope } from './commented.js';
    /* import('./commented-too.js') */
    import a, { b } from './a.js';
    import {
      c,
    } from "../shared/c.js";
    import './side-effect.js';
    export { d } from './d.js';
    const e = await import(/* webpackIgnore: true */ './e.js');
    const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    const dynamic = import(name);
    const s = "import x from './in-a-string.js'";
  `);
  assert.deepEqual(specs.map((s) => s.spec).sort(), ['../shared/c.js', './a.js', './d.js', './e.js', './side-effect.js', './worker.js']);
  const { files, edges, problems } = importGraph();
  assert.deepEqual(problems, []);
  assert.ok(files.length > 80, `${files.length} files read`);
  const to = (file) => (edges.get(file) || []).map((e) => e.to);
  assert.ok(to(roomFile(PAGES[0], PAGES[0].script)).includes(roomFile(PAGES[0], PAGES[0].worker)), 'the demo starts its worker (new URL)');
  assert.ok(to('bindings/pool.mjs').includes('bindings/pool-worker.mjs'), 'the pool starts its worker');
  assert.ok(to('web/element/attn-scope.js').includes('bindings/attnscope.mjs'), "'attnscope' is the bindings");
  assert.ok(to('bindings/attnscope.cjs.mjs').includes('bindings/attnscope.mjs'), 'import() with a literal');
});

test('no file imports against the layers (pages → web/shared → lab → bindings → wasm; a page only its own room)', () => {
  const violations = layerViolations(importGraph());
  assert.deepEqual(violations, [], `imports against the layers:\n  ${violations.join('\n  ')}`);
});

test('no circle of imports in web/, lab/ or bindings/', () => {
  const found = circles(importGraph());
  assert.deepEqual(found, [], `circles of imports:\n  ${found.map((c) => c.join(' ⇄ ')).join('\n  ')}`);
});

test('a page is one folder and one entry of scripts/pages.mjs: every room has its entry, every entry its files in its room', () => {
  const rooms = readdirSync(join(ROOT, PAGES_DIR)).filter((f) => statSync(join(ROOT, PAGES_DIR, f)).isDirectory()).sort();
  assert.deepEqual(rooms, PAGES.map((p) => p.room).sort(), `the folders of ${PAGES_DIR}/ are the pages of scripts/pages.mjs`);
  for (const p of PAGES) {
    for (const f of [p.html, p.script, p.worker, p.style].filter(Boolean)) assert.ok(existsSync(join(ROOT, roomFile(p, f))), `${roomFile(p, f)} (scripts/pages.mjs)`);
  }
  const loose = readdirSync(join(ROOT, 'web')).filter((f) => statSync(join(ROOT, 'web', f)).isFile());
  assert.deepEqual(loose, [], `web/ holds only folders (${PAGES_DIR}, ${SHARED_DIR}, web/element)`);
});

test('the checks fail on a circle and on an import against the layers', () => {
  // A graph made up here: a shared module importing a page, lab importing web/, bindings importing web/,
  // one page importing another, and a circle.
  const graph = {
    files: ['web/shared/a.js', 'lab/b.js', 'bindings/c.mjs', 'web/pages/one/p.js', 'web/pages/two/q.js', 'web/shared/x.js', 'web/shared/y.js', 'web/stray.js'],
    edges: new Map([
      ['web/shared/a.js', [{ to: 'web/pages/one/p.js', spec: '../pages/one/p.js' }]],
      ['lab/b.js', [{ to: 'web/shared/a.js', spec: '../web/shared/a.js' }]],
      ['bindings/c.mjs', [{ to: 'web/shared/a.js', spec: '../web/shared/a.js' }]],
      ['web/pages/one/p.js', [{ to: 'web/pages/two/q.js', spec: '../two/q.js' }, { to: 'web/shared/a.js', spec: '../../shared/a.js' }, { to: 'lab/b.js', spec: '../../../lab/b.js' }]],
      ['web/shared/x.js', [{ to: 'web/shared/y.js', spec: './y.js' }]],
      ['web/shared/y.js', [{ to: 'web/shared/x.js', spec: './x.js' }]],
    ]),
  };
  const v = layerViolations(graph);
  assert.equal(v.length, 5, v.join('\n'));
  for (const [file, to] of [['web/shared/a.js', 'web/pages/one/p.js'], ['lab/b.js', 'web/shared/a.js'], ['bindings/c.mjs', 'web/shared/a.js'], ['web/pages/one/p.js', 'web/pages/two/q.js']]) {
    assert.ok(v.some((line) => line.startsWith(`${file} `) && line.includes(` imports ${to} `)), `${file} → ${to} is refused`);
  }
  assert.ok(v.some((line) => line.startsWith('web/stray.js belongs to no layer')));
  assert.deepEqual(circles(graph).map((c) => c.join(' ')).sort(), ['lab/b.js web/pages/one/p.js web/shared/a.js', 'web/shared/x.js web/shared/y.js']);
});

// The pool goes through the scope's one internal seam (bindings/scope-plan.mjs: planner, runPlan,
// errorRecord), never into a scope's private members: no Scope.prototype, no scope._method(), no
// import of the AttnScope class, and no error told apart by its message text.
export function poolPrivacyProblems(sources) {
  const out = [];
  for (const [file, source] of Object.entries(sources)) {
    const code = transformSync(source, { loader: 'js', legalComments: 'none' }).code;
    if (/\bScope\.prototype\b/.test(code)) out.push(`${file} names Scope.prototype`);
    for (const m of code.matchAll(/\bscope\??\.(_\w+)/g)) out.push(`${file} calls the scope's private ${m[1]}`);
    if (specifiersOf(source).some((s) => /scope-class\.mjs$/.test(s.spec))) out.push(`${file} imports the AttnScope class`);
    if (/\.message\b/.test(code) && /\.exec\(|\.test\(|\.match\(/.test(code.split('\n').filter((l) => /\.message\b/.test(l)).join('\n')))
      out.push(`${file} reads an error's message text with a regular expression`);
  }
  return out;
}

test("the pool's files use the scope's seam (scope-plan.mjs), not its private members", () => {
  const files = readdirSync(join(ROOT, 'bindings')).filter((f) => /^pool.*\.mjs$/.test(f));
  assert.ok(files.length >= 3, files.join(', '));
  const sources = Object.fromEntries(files.map((f) => [`bindings/${f}`, readFileSync(join(ROOT, 'bindings', f), 'utf8')]));
  assert.deepEqual(poolPrivacyProblems(sources), []);
  // The check itself finds each of them.
  const bad = poolPrivacyProblems({
    'a.mjs': "import { Scope } from './scope-class.mjs';\nconst v = Object.create(Scope.prototype);",
    'b.mjs': 'export const run = (scope) => scope._attention(1);',
    'c.mjs': 'const m = /^Q: element (\\d+) is /.exec(e.message);',
  });
  assert.deepEqual(bad, ['a.mjs names Scope.prototype', 'a.mjs imports the AttnScope class', "b.mjs calls the scope's private _attention",
    "c.mjs reads an error's message text with a regular expression"]);
});
