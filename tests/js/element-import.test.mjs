// import 'attnscope/element' where there is no DOM: a server-rendering framework evaluates the page's
// modules in Node, so the element's module must evaluate there without throwing (no HTMLElement, no
// document, no customElements) and define nothing; where there is a custom-element registry it defines
// <attn-scope> once, and a second copy of the module leaves the first definition in place.
// Each case runs in a fresh Node process, resolving the package's own "exports" (a self-reference
// from the project folder), as an app's server would.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { DIST, ROOT } from './helpers.mjs';

const exec = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), 'attnscope-element-import-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs `code` as an ES module in a new Node process in the project folder; resolves { code, stdout, stderr }. */
async function runModule(code) {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, maxBuffer: 1 << 26 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('node: import \'attnscope/element\' (ESM) exits 0, prints nothing and defines nothing', async () => {
  assert.ok(existsSync(join(DIST, 'attnscope-element.mjs')), 'dist/attnscope-element.mjs is missing: run npm run build');
  const r = await runModule(`
    const m = await import('attnscope/element');
    console.log(JSON.stringify({
      exports: Object.keys(m).sort(),
      classIsFunction: typeof m.AttnScopeElement === 'function' && m.default === m.AttnScopeElement,
      views: Object.keys(m.VIEWS).length,
      globals: ['HTMLElement', 'customElements', 'document', 'window'].filter((g) => g in globalThis),
    }));`);
  assert.equal(r.code, 0, `node exited ${r.code}: ${String(r.stderr).slice(0, 600)}`);
  assert.equal(r.stderr, '', 'nothing on stderr');
  const got = JSON.parse(r.stdout);
  assert.deepEqual(got.exports, ['AttnScopeElement', 'CONTROLS', 'DEFAULTS', 'VIEWS', 'default']);
  assert.equal(got.classIsFunction, true);
  assert.ok(got.views > 0);
  assert.deepEqual(got.globals, [], 'the module added no DOM global');
});

test('with a custom-element registry: defined once; a second copy of the module keeps the first definition', async () => {
  // A copy of the module under another URL is what a page with two bundles (or the module and the
  // classic script) holds: a second customElements.define('attn-scope') would throw NotSupportedError.
  const copy = join(tmp, 'attnscope-element-copy.mjs');
  copyFileSync(join(DIST, 'attnscope-element.mjs'), copy);
  for (const f of ['attnscope.mjs', 'scope.mjs', 'attnscope-wasm.mjs', 'attnscope-scalar-wasm.mjs']) {
    if (existsSync(join(DIST, f))) copyFileSync(join(DIST, f), join(tmp, f));
  }
  const r = await runModule(`
    // The least a DOM offers for a definition: HTMLElement and a registry that refuses a second definition.
    globalThis.HTMLElement = class HTMLElement {};
    const defined = new Map();
    let calls = 0;
    globalThis.customElements = {
      get: (name) => defined.get(name),
      define: (name, cls) => {
        calls++;
        if (defined.has(name)) throw new Error('NotSupportedError: "' + name + '" has already been defined');
        defined.set(name, cls);
      },
    };
    const first = await import('attnscope/element');
    const second = await import(${JSON.stringify(pathToFileURL(copy).href)});
    console.log(JSON.stringify({
      calls,
      names: [...defined.keys()],
      isFirst: defined.get('attn-scope') === first.AttnScopeElement,
      distinctCopies: first.AttnScopeElement !== second.AttnScopeElement,
      extendsHTMLElement: first.AttnScopeElement.prototype instanceof HTMLElement,
    }));`);
  assert.equal(r.code, 0, `node exited ${r.code}: ${String(r.stderr).slice(0, 600)}`);
  assert.deepEqual(JSON.parse(r.stdout), { calls: 1, names: ['attn-scope'], isFirst: true, distinctCopies: true, extendsHTMLElement: true });
});
