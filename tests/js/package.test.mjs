// The published package, not the source tree: `npm pack` the project (dist/ must be built), install
// the tarball into a fresh project under the OS temp folder, and there
//   - import it from Node (split and single-file builds) and run attend() on two sentences,
//   - bundle a tiny page with esbuild (`import { createAttnScope } from 'attnscope'`), serve it on
//     127.0.0.1 and run it in Debian's Chromium through playwright-core, and the same for 'attnscope/single',
//   - type-check the example against the installed declarations (package.json "exports" → "types"),
// comparing every number with the same calls made on the source tree's dist/ in this process;
//   - build the README's example with Vite and webpack, with no configuration for the package, run it
//     from the main thread and from a module worker, and in Vite's dev server and from a plain page
//     importing the package's files as a CDN serves them: the README's lines appear, no request fails;
//     the same app runs createAttnPool (its worker module found by the bundler) and gets the scope's numbers;
//   - serve an HTML page where the wasm should be and read the error; call scores() and check that the
//     vocabulary is never requested;
//   - build an app that imports 'attnscope/element' with Vite: the wasm and the vocabulary are assets,
//     every JavaScript chunk is under Vite's 500 kB warning, and the element draws in Chromium;
//   - assets an app opts into: an app of the core alone (Vite 8, webpack 5) ships under 2 MB, no file over
//     1 MB, and no data file; one importing 'attnscope/model' ships the model and its licence, and reads
//     the model from the Cache API the second time; a VitePress site with the element's model view;
//   - the docs' table of the tarball is this tarball's.
// One tarball, one install and one Chromium serve every test here.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { DIST, ROOT, loadScope, loadSingleScope, tsc } from './helpers.mjs';
import { CHROMIUM_ARGS, relaxedSimdLikeChromium } from '../../scripts/browser-harness.mjs';
import { tarballTable } from '../../scripts/dist-sizes.mjs';

const exec = promisify(execFile);
const KEEP = !!process.env.ATTNSCOPE_KEEP_TMP;  // set to keep the temporary project for a look

// The calls made everywhere (Node source tree, Node installed package, Chromium) and compared.
const CASES = {
  cross: { query: "The animal didn't cross the street because it was too tired.", keys: 'The cat sat on the mat.' },
  crossCosine: { query: 'The cat sat on the mat.', keys: 'A kitten rested on the rug.', score: 'cosine', temperature: 0.1 },
  multiHead: { query: 'Paris is the capital of France.', keys: 'Berlin is the capital of Germany.', heads: 4, projection: 'random',
    seed: 3, positional: true, score: 'idw', mask: 'causal' },
  self: { query: "The animal didn't cross the street because it was too tired.", score: 'additive', heads: 2 },
};
// What is compared: the tokens and the arrays, as plain numbers (JSON keeps float32 values exactly).
// The same source is pasted into the consumer script and the page (pick.toString()).
const pick = (r) => ({ queryTokens: r.queryTokens, keyTokens: r.keyTokens, variant: r.variant,
  scores: Array.from(r.scores), weights: Array.from(r.weights), output: Array.from(r.output),
  q: r.q.map((x) => Array.from(x)), entropy: Array.from(r.stats.entropy) });
const PICK = pick.toString();

const runAll = (scope) => Object.fromEntries(Object.entries(CASES).map(([name, o]) => [name, pick(scope.attend(o))]));

let tmp, app, tarball, packed, expected, browser;

before(async () => {
  for (const f of ['attnscope.mjs', 'attnscope.wasm', 'attnscope-scalar.wasm', 'attnscope.single.mjs', 'glove-50k.bin'])
    assert.ok(existsSync(join(DIST, f)), `dist/${f} is missing: run npm run build`);
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-pack-'));
  const env = { ...process.env, npm_config_cache: join(tmp, 'npm-cache'), npm_config_update_notifier: 'false' };
  const { stdout } = await exec('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: ROOT, env, maxBuffer: 1 << 24 });
  packed = JSON.parse(stdout.slice(stdout.indexOf('[')))[0];
  tarball = join(tmp, packed.filename);
  app = join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'attnscope-consumer', private: true, type: 'module' }, null, 2));
  await exec('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app, env });

  // Node's SIMD build for the installed package run by node; the relaxed-SIMD build, with the 50,000 and
  // the 10,000 words, for the pages in Chromium, which loads that build by default.
  relaxedSimdLikeChromium();
  const split = await loadScope({ simd: true }), scalar = await loadScope({ simd: false }), single = await loadSingleScope();
  const relaxed = await loadScope({ simd: 'relaxed' }), relaxedSmall = await loadScope({ simd: 'relaxed', vocabulary: 'small' });
  expected = { split: runAll(split), scalar: runAll(scalar), single: runAll(single), relaxed: runAll(relaxed), relaxedSmall: runAll(relaxedSmall) };
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  if (browser) await browser.close();
  if (tmp && !KEEP) rmSync(tmp, { recursive: true, force: true });
  else if (tmp) console.log(`kept ${tmp}`);
});

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm', '.bin': 'application/octet-stream', '.json': 'application/json' };

/**
 * A static server on 127.0.0.1 (free port) for `folder`; `fallback` answers every unknown path with that
 * file and status 200, as single-page-app hosts and dev servers do. Resolves { origin, requests, close }.
 */
async function serve(folder, { fallback } = {}) {
  const requests = [];
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push(pathname);
    let path = join(folder, pathname.endsWith('/') ? pathname + 'index.html' : pathname);
    if (!path.startsWith(folder) || !existsSync(path) || !statSync(path).isFile()) {
      if (!fallback) { res.writeHead(404); res.end('not found'); return; }
      path = join(folder, fallback);
    }
    const body = readFileSync(path);
    res.writeHead(200, { 'content-type': MIME[extname(path)] ?? 'application/octet-stream', 'content-length': body.length });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Opens `url` in a fresh page; resolves the page and a log of failed requests, HTTP errors and page errors. */
async function openPage(url) {
  const page = await browser.newPage();
  const problems = [], console_ = [];
  page.on('console', (m) => console_.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  // Workers' requests and errors too (a module worker's fetches do not reach page.on('request')).
  page.on('worker', (w) => w.on('console', (m) => console_.push(`[worker] ${m.type()}: ${m.text()}`)));
  await page.goto(url);
  return { page, problems, console: console_ };
}

describe('npm pack', () => {
  test('the tarball holds the package files and nothing else', () => {
    const files = packed.files.map((f) => f.path).sort();
    for (const f of ['package.json', 'README.md', 'dist/attnscope.mjs', 'dist/scope.mjs', 'dist/attnscope-wasm.mjs', 'dist/attnscope.wasm',
      'dist/attnscope-relaxed.wasm', 'dist/attnscope-scalar.wasm', 'dist/attnscope.single.mjs', 'dist/attnscope.d.ts',
      'dist/model.mjs', 'dist/vocab-50k.mjs', 'dist/vocab-10k.mjs', 'dist/assets.d.ts', 'dist/pool.mjs', 'dist/pool.d.ts',
      'dist/attnscope.single.d.ts', 'dist/glove-50k.bin', 'dist/glove-10k.bin', 'dist/attnscope.cjs', 'dist/attnscope.d.cts']) {
      assert.ok(files.includes(f), `${f} in the tarball (has ${files.join(', ')})`);
    }
    // The licences ship with what they cover: the code's, the trained model's and the word vectors'; and
    // package.json says all three (an SPDX expression a registry shows).
    for (const f of ['LICENSE', 'dist/use-lite.LICENSE', 'dist/glove.LICENSE']) assert.ok(files.includes(f), `${f} in the tarball (has ${files.join(', ')})`);
    assert.equal(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).license, 'MIT AND Apache-2.0 AND PDDL-1.0');
    assert.match(readFileSync(join(DIST, 'glove.LICENSE'), 'utf8'), /Public Domain\s+Dedication and License/);
    for (const f of files) assert.match(f, /^(package\.json|README\.md|LICENSE|dist\/[^/]+|docs\/[^/]+\.(md|png))$/, `${f} should not be published`);
    console.log(`tarball ${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${files.length} files`);
  });

  test('the docs list the tarball\'s size and contents as packed (scripts/dist-sizes.mjs writes the table)', () => {
    const text = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const block = text.match(/<!-- tarball -->\n([\s\S]*?)\n<!-- \/tarball -->/);
    assert.ok(block, 'docs/api.md has a tarball block');
    const info = { size: packed.size, unpackedSize: packed.unpackedSize, files: packed.files.map((f) => ({ path: f.path, size: f.size })) };
    assert.equal(block[1], tarballTable(info), 'the table differs from this tarball: run node scripts/dist-sizes.mjs');
  });

  test('every relative link and image of the shipped docs is a file the tarball holds', () => {
    const files = new Set(packed.files.map((f) => f.path));
    const broken = [];
    for (const doc of [...files].filter((f) => /^docs\/[^/]+\.md$/.test(f))) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const [, link] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (/^(#|[a-z]+:)/.test(link)) continue;
        const target = join(dirname(doc), link.split('#')[0]).replace(/\\/g, '/');
        if (!files.has(target)) broken.push(`${doc} → ${link}`);
      }
    }
    assert.deepEqual(broken, [], 'links to files the package does not ship');
  });

  test('the README links only files the tarball holds (it is the package page users read)', () => {
    const files = new Set(packed.files.map((f) => f.path));
    const readmeText = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const links = [...readmeText.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^(#|[a-z]+:)/.test(l));
    for (const link of links) assert.ok(files.has(link.split('#')[0].replace(/^\.\//, '')), `README links ${link}, which the tarball does not contain`);
  });

  test('installed: exports resolve the module, the single file, the wasm, the vocabulary, the model and the tokenizer subpaths', async () => {
    const script = `
      for (const s of ['attnscope', 'attnscope/single', 'attnscope/attnscope.wasm', 'attnscope/attnscope-relaxed.wasm', 'attnscope/attnscope-scalar.wasm',
                       'attnscope/glove-50k.bin', 'attnscope/glove-10k.bin', 'attnscope/package.json',
                       'attnscope/element', 'attnscope/attnscope-element.js', 'attnscope/use-lite.bin', 'attnscope/use-lite.LICENSE',
                       'attnscope/sentencepiece', 'attnscope/pool', 'attnscope/model', 'attnscope/vocab-50k', 'attnscope/vocab-10k'])
        console.log(s + ' ' + import.meta.resolve(s));`;
    writeFileSync(join(app, 'resolve.mjs'), script);
    const { stdout } = await exec(process.execPath, ['resolve.mjs'], { cwd: app });
    const lines = Object.fromEntries(stdout.trim().split('\n').map((l) => l.split(' ')));
    assert.match(lines['attnscope'], /node_modules\/attnscope\/dist\/attnscope\.mjs$/);
    assert.match(lines['attnscope/single'], /node_modules\/attnscope\/dist\/attnscope\.single\.mjs$/);
    assert.match(lines['attnscope/element'], /node_modules\/attnscope\/dist\/attnscope-element\.mjs$/);
    assert.match(lines['attnscope/attnscope-element.js'], /node_modules\/attnscope\/dist\/attnscope-element\.js$/);
    assert.match(lines['attnscope/use-lite.bin'], /node_modules\/attnscope\/dist\/use-lite\.bin$/);
    assert.match(lines['attnscope/sentencepiece'], /node_modules\/attnscope\/dist\/sentencepiece\.mjs$/);
    assert.match(lines['attnscope/pool'], /node_modules\/attnscope\/dist\/pool\.mjs$/);
    assert.match(lines['attnscope/model'], /node_modules\/attnscope\/dist\/model\.mjs$/);
    assert.match(lines['attnscope/vocab-50k'], /node_modules\/attnscope\/dist\/vocab-50k\.mjs$/);
    for (const [k, v] of Object.entries(lines)) {
      assert.ok(v.includes('/app/node_modules/attnscope/'), `${k} resolves inside the installed package: ${v}`);
      assert.ok(existsSync(new URL(v)), `${k} → ${v} exists`);
    }
  });
});

describe('the installed package in Node', () => {
  test('attend() on two sentences: split SIMD, split scalar and single-file builds give the source tree\'s numbers', async () => {
    const script = `
      import fs from 'node:fs';
      import { createAttnScope, engineHasSimd } from 'attnscope';
      import { createAttnScope as createSingle } from 'attnscope/single';
      const CASES = ${JSON.stringify(CASES)};
      const pick = ${PICK};
      const runAll = (scope) => Object.fromEntries(Object.entries(CASES).map(([name, o]) => [name, pick(scope.attend(o))]));
      const split = await createAttnScope({ preload: true });
      const out = { simd: engineHasSimd(), vocabulary: split.vocabulary, variants: split.variants, split: runAll(split),
                    scalar: runAll(await createAttnScope({ simd: false, preload: true })), single: runAll(await createSingle()) };
      // locateFile: the wasm and the vocabulary moved to a folder of the app's choosing.
      fs.mkdirSync('assets', { recursive: true });
      for (const f of ['attnscope.wasm', 'glove-50k.bin']) fs.copyFileSync(new URL(import.meta.resolve('attnscope/' + f)), 'assets/' + f);
      const asked = [];
      const located = await createAttnScope({ preload: true, locateFile: (p) => { asked.push(p); return new URL(p, new URL('./assets/', import.meta.url)).href; } });
      out.located = runAll(located); out.asked = asked.sort();
      // wasmBinary + vocabulary bytes.
      const bytes = await createAttnScope({ wasmBinary: fs.readFileSync(new URL(import.meta.resolve('attnscope/attnscope.wasm'))),
                                            vocabulary: fs.readFileSync(new URL(import.meta.resolve('attnscope/glove-10k.bin'))) });
      out.bytesVocabulary = bytes.vocabulary;
      out.bytes = runAll(bytes);
      console.log(JSON.stringify(out));`;
    writeFileSync(join(app, 'consumer.mjs'), script);
    const { stdout } = await exec(process.execPath, ['consumer.mjs'], { cwd: app, maxBuffer: 1 << 26 });
    const got = JSON.parse(stdout);
    assert.equal(got.simd, true);
    assert.deepEqual(got.vocabulary, { size: 50000, dim: 100, name: 'glove-50k.bin' });
    assert.deepEqual(got.split, expected.split, 'split build (SIMD)');
    assert.deepEqual(got.scalar, expected.scalar, 'split build (scalar)');
    assert.deepEqual(got.single, expected.single, 'single-file build');
    assert.deepEqual(got.located, expected.split, 'locateFile');
    assert.deepEqual(got.asked, ['attnscope.wasm', 'glove-50k.bin']);
    assert.deepEqual(got.bytesVocabulary, { size: 10000, dim: 100, name: 'custom' });
    // The single-file build is the SIMD build with the 10,000-word vocabulary inlined: the same numbers.
    assert.deepEqual(got.bytes, expected.single, 'wasmBinary + 10k vocabulary bytes = the single-file build');
    assert.equal(got.split.cross.variant, 'simd');
    assert.equal(got.scalar.cross.variant, 'scalar');
  });

  test('require(\'attnscope\') without require(esm): the CommonJS entry gives the ES module\'s numbers, and its scopes are the same class', async (t) => {
    // require(esm) is on by default from Node 20.19 and 22.12; switched off, Node behaves as Node 18,
    // which package.json "engines" allows: require() of an ES module throws ERR_REQUIRE_ESM.
    const flag = '--no-experimental-require-module';
    const flags = process.allowedNodeEnvironmentFlags.has(flag) ? [flag] : [];
    t.diagnostic(`node ${process.version} ${flags.join(' ') || '(no require(esm) to switch off)'}`);
    writeFileSync(join(app, 'consumer.cjs'), `
      const attnscope = require('attnscope');
      const { createAttnScope, engineHasSimd } = attnscope;
      const CASES = ${JSON.stringify(CASES)};
      const pick = ${PICK};
      const runAll = (scope) => Object.fromEntries(Object.entries(CASES).map(([name, o]) => [name, pick(scope.attend(o))]));
      let esmRequire = null;
      try { require('./node_modules/attnscope/dist/attnscope.mjs'); esmRequire = 'loaded'; } catch (e) { esmRequire = e.code; }
      (async () => {
        const split = await createAttnScope({ preload: true });
        const scalar = await attnscope.default({ simd: false, preload: true });
        // The scope came from the ES module (one copy of the code): an ES import accepts it for sharing.
        const { createAttnScope: createFromImport } = await import('attnscope');
        const shared = await createFromImport({ sharing: split, vocabulary: 'small', preload: true });
        console.log(JSON.stringify({ resolved: require.resolve('attnscope'), simd: engineHasSimd(), esmRequire,
          split: runAll(split), scalar: runAll(scalar), shared: runAll(shared), sharedVocabulary: shared.vocabulary }));
      })().catch((e) => { console.error(e); process.exit(1); });`);
    const { stdout } = await exec(process.execPath, [...flags, 'consumer.cjs'], { cwd: app, maxBuffer: 1 << 26 });
    const got = JSON.parse(stdout);
    assert.match(got.resolved, /node_modules\/attnscope\/dist\/attnscope\.cjs$/);
    if (flags.length) assert.equal(got.esmRequire, 'ERR_REQUIRE_ESM', 'require(esm) is off in this run');
    assert.equal(got.simd, true);
    assert.deepEqual(got.split, expected.split, 'require(\'attnscope\'), SIMD');
    assert.deepEqual(got.scalar, expected.scalar, 'require(\'attnscope\').default, scalar');
    assert.deepEqual(got.shared, expected.single, 'an ES-imported scope sharing the required one\'s instance, 10k vocabulary');
    assert.equal(got.sharedVocabulary.size, 10000);
  });

  test('installed declarations: tsc --noEmit on the example, resolved through package.json exports', async () => {
    copyFileSync(join(ROOT, 'tests/js/types-example.ts'), join(app, 'types-example.ts'));
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], module: 'nodenext', moduleResolution: 'nodenext', types: [] },
      files: ['types-example.ts'],
    }, null, 2));
    const { code, output } = await tsc(join(app, 'tsconfig.json'), ROOT);
    assert.equal(code, 0, `tsc failed against the installed package:\n${output}`);
    // A CommonJS module of the app (.cts): the "require" condition's declarations (attnscope.d.cts).
    writeFileSync(join(app, 'types-require.cts'), `import attnscope = require('attnscope');
const simd: boolean = attnscope.engineHasSimd();
export async function run(): Promise<number> {
  const scope: attnscope.AttnScope = await attnscope.createAttnScope({ preload: true, simd });
  const r = await attnscope.default({ vocabulary: 'small' }).then((s) => s.attend({ query: 'The cat.' }));
  // @ts-expect-error: attend() takes an options object, not a string
  scope.attend('The cat.');
  return r.weights.length;
}
`);
    writeFileSync(join(app, 'tsconfig.require.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], module: 'nodenext', moduleResolution: 'nodenext', types: [] },
      files: ['types-require.cts'],
    }, null, 2));
    const cts = await tsc(join(app, 'tsconfig.require.json'), ROOT);
    assert.equal(cts.code, 0, `tsc failed on a CommonJS consumer:\n${cts.output}`);
  });
});

describe('the installed package in a bundled page (esbuild) in Chromium', () => {
  let site, fallbackSite;

  before(async () => {
    const esbuild = await import('esbuild');
    const src = join(app, 'src'), pub = join(app, 'esbuild-out'), bare = join(app, 'esbuild-out-no-assets');
    for (const dir of [src, pub, bare]) mkdirSync(dir, { recursive: true });
    const pageScript = (from) => `
      import { createAttnScope, engineHasSimd } from '${from}';
      const CASES = ${JSON.stringify(CASES)};
      const pick = ${PICK};
      const runAll = (scope) => Object.fromEntries(Object.entries(CASES).map(([name, o]) => [name, pick(scope.attend(o))]));
      window.results = (async () => {
        try {
          const out = { simd: engineHasSimd(), main: runAll(await createAttnScope(${from === 'attnscope' ? '{ preload: true }' : ''})) };
          ${from === 'attnscope' ? 'out.scalar = runAll(await createAttnScope({ simd: false, preload: true }));' : ''}
          document.body.textContent = 'done';
          return out;
        } catch (e) { return { error: String(e && e.message || e) }; }
      })();`;
    writeFileSync(join(src, 'page.js'), pageScript('attnscope'));
    writeFileSync(join(src, 'page-single.js'), pageScript('attnscope/single'));
    // The element, as a bundled site uses it: import 'attnscope/element' defines <attn-scope>.
    writeFileSync(join(src, 'page-element.js'), `
      import 'attnscope/element';
      const CASES = ${JSON.stringify(CASES)};
      const pick = ${PICK};
      window.results = new Promise((resolve) => {
        const el = document.createElement('attn-scope');
        el.setAttribute('query', CASES.cross.query);
        el.setAttribute('keys', CASES.cross.keys);
        el.addEventListener('attn-ready', () => resolve({ main: { cross: pick(el.result) },
          cells: el.shadowRoot.querySelectorAll('svg.heatmap g.cells rect').length, nq: el.result.nq, nk: el.result.nk }));
        el.addEventListener('attn-error', (ev) => resolve({ error: ev.detail.message }));
        document.body.append(el);
      });`);
    // Bring-your-own-vectors only: scores(), softmax(), attention(); the vocabulary must never be requested.
    writeFileSync(join(src, 'page-scores.js'), `
      import { createAttnScope } from 'attnscope';
      window.results = (async () => {
        try {
          const scope = await createAttnScope();
          const Q = new Float32Array([1, 0, 0, 1]), K = new Float32Array([1, 0, 0, 1, 1, 1]), V = new Float32Array([1, 2, 3]);
          const S = scope.scores(Q, K, { nq: 2, nk: 3, d: 2, score: 'dot' });
          const A = scope.softmax(S, { rows: 2, cols: 3 });
          const att = scope.attention(Q, K, V, { nq: 2, nk: 3, d: 2, dv: 1 });
          let attendError = null;
          try { scope.attend({ query: 'The cat.' }); } catch (e) { attendError = e.message; }
          await new Promise((r) => setTimeout(r, 300));  // a stray download would have started by now
          return { S: Array.from(S), A: Array.from(A), output: Array.from(att.output), vocabulary: scope.vocabulary, attendError };
        } catch (e) { return { error: String(e && e.message || e) }; }
      })();`);
    const common = { bundle: true, format: 'esm', platform: 'browser', target: 'es2020', absWorkingDir: app, logLevel: 'silent' };
    for (const name of ['page', 'page-single', 'page-scores', 'page-element']) {
      const r = await esbuild.build({ ...common, entryPoints: [join(src, `${name}.js`)], outfile: join(pub, `${name}.js`) });
      assert.deepEqual(r.errors, []);
      writeFileSync(join(pub, `${name}.html`), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>${name}</title><script type="module" src="${name}.js"></script><body>loading`);
    }
    // How a user ships the split build with esbuild: esbuild leaves new URL('./attnscope.wasm',
    // import.meta.url) as it is, so the bundle looks for the files next to itself: copy them from
    // node_modules/attnscope/dist/ into the folder the bundle is served from (or pass locateFile).
    // The single-file build needs nothing besides its bundle.
    for (const f of ['attnscope.wasm', 'attnscope-relaxed.wasm', 'attnscope-scalar.wasm', 'glove-50k.bin', 'glove-10k.bin']) copyFileSync(join(app, 'node_modules/attnscope/dist', f), join(pub, f));
    // The same page on a host that lacks the files and answers every unknown path with the page.
    for (const f of ['page.js', 'page.html']) copyFileSync(join(pub, f), join(bare, f));
    site = await serve(pub);
    fallbackSite = await serve(bare, { fallback: 'page.html' });
  });

  after(async () => {
    await site?.close();
    await fallbackSite?.close();
  });

  async function runPage(origin, name) {
    const { page, problems, console: log } = await openPage(`${origin}/${name}.html`);
    try {
      await page.waitForFunction(() => window.results !== undefined, null, { timeout: 30_000 });
      return { got: await page.evaluate(() => window.results), problems, log };
    } finally {
      await page.close();
    }
  }

  test('import { createAttnScope } from \'attnscope\': attend() gives the source tree\'s numbers (SIMD and scalar wasm)', async () => {
    const { got, problems, log } = await runPage(site.origin, 'page');
    assert.ok(!got.error, `${got.error}\n${log.join('\n')}`);
    assert.deepEqual(problems, []);
    assert.equal(got.simd, true, 'Chromium has wasm SIMD');
    assert.deepEqual(got.main, expected.relaxed, 'relaxed-SIMD build (Chromium\'s default) in Chromium vs Node');
    assert.deepEqual(got.scalar, expected.scalar, 'scalar build in Chromium vs Node');
  });

  test('import { createAttnScope } from \'attnscope/single\': the single file alone, same numbers', async () => {
    const { got, problems, log } = await runPage(site.origin, 'page-single');
    assert.ok(!got.error, `${got.error}\n${log.join('\n')}`);
    assert.deepEqual(problems, []);
    assert.deepEqual(got.main, expected.single, 'single-file build in Chromium vs Node');
  });

  // The element's module runs the split build (relaxed SIMD in Chromium) with the 10,000-word vocabulary file.
  test('import \'attnscope/element\': <attn-scope> draws the split build\'s numbers', async () => {
    const { got, problems } = await runPage(site.origin, 'page-element');
    assert.ok(!got.error, got.error);
    assert.deepEqual(problems, []);
    assert.deepEqual(got.main.cross, expected.relaxedSmall.cross, 'the element\'s result vs the relaxed-SIMD build with 10,000 words in Node');
    assert.equal(got.cells, got.nq * got.nk);
  });

  test('scores(), softmax() and attention() alone never request the vocabulary; attend() says how to load it', async () => {
    const before = site.requests.length;
    const { got, problems } = await runPage(site.origin, 'page-scores');
    assert.ok(!got.error, got.error);
    assert.deepEqual(problems, []);
    const requested = site.requests.slice(before);
    assert.deepEqual(requested.filter((p) => p.endsWith('.bin')), [], `no vocabulary request (requests: ${requested.join(', ')})`);
    assert.ok(requested.includes('/attnscope-relaxed.wasm'), `the wasm Chromium runs was loaded (requests: ${requested.join(', ')})`);
    assert.deepEqual(got.S, [1, 0, 1, 0, 1, 1]);
    assert.equal(got.output.length, 2);
    assert.deepEqual(got.vocabulary, { size: 0, dim: 0, name: 'glove-50k.bin' });
    assert.match(got.attendError, /^attend: the vocabulary \(glove-50k\.bin\) is not loaded yet; await scope\.loadVocabulary\(\).*preload: true/);
  });

  test('an HTML page where the wasm should be: the error names the URL, what came back and locateFile', async () => {
    const { got } = await runPage(fallbackSite.origin, 'page');
    assert.ok(got.error, 'createAttnScope() must reject');
    const url = `${fallbackSite.origin}/attnscope-relaxed.wasm`;
    assert.ok(got.error.includes(url), `names the URL ${url}: ${got.error}`);
    assert.match(got.error, /should be attnscope-relaxed\.wasm, a WebAssembly module \(starting 00 61 73 6d\), but it is an HTML page \(text\/html, status 200, \d+ bytes\)/);
    assert.match(got.error, /locateFile/);
    assert.doesNotMatch(got.error, /Aborted|CompileError|magic word/, 'not Emscripten\'s abort text');
  });
});

// ---- bundlers: the README's example, as an app would hold it, built with no configuration for attnscope --------

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').slice(readFileSync(join(ROOT, 'README.md'), 'utf8').indexOf('## Use it from JavaScript'));
const README_CODE = readme.match(/```js\n([\s\S]*?)```/)[1];
const README_OUTPUT = readme.match(/prints[^\n]*\n\n```\n([\s\S]*?)```/)[1];

// The example as a module of the app: its import stays at the top, the rest runs in a function whose
// `console` collects the lines. main.js shows them in <pre id="main">, the module worker's in <pre id="worker">.
const IMPORT_LINE = README_CODE.match(/^(import [^\n]*\n)+/)[0];
// The same lines for a page that imports the package's files by path, as from a CDN.
const CDN_IMPORTS = IMPORT_LINE.replace("'attnscope'", "'/attnscope/dist/attnscope.mjs'").replace(/'attnscope\/([\w-]+)'/g, "'/attnscope/dist/$1.mjs'");
const APP_FILES = {
  'index.html': '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>attnscope in an app</title>\n' +
    '<script type="module" src="./src/main.js"></script>\n<body>\n',
  'src/example.js': (() => {
    assert.match(IMPORT_LINE, /^import \{ createAttnScope \} from 'attnscope';\nimport 'attnscope\/vocab-50k';/, 'the README example starts with its imports');
    return `${IMPORT_LINE}export async function example(console) {\n${README_CODE.slice(IMPORT_LINE.length)}}\n`;
  })(),
  'src/run.js': `import { example } from './example.js';
export async function run() {
  const lines = [];
  try { await example({ log: (line) => lines.push(line) }); return lines.join('\\n') + '\\n'; } catch (e) { return 'error: ' + (e && e.message || e); }
}
`,
  // The pool of workers (createAttnPool) in the same app: its worker module is found by the bundler
  // through new URL('./pool-worker.mjs', import.meta.url); <pre id="pool"> says whether it ran and
  // gave the scope's numbers.
  'src/pool.js': `import { createAttnScope } from 'attnscope';
import { createAttnPool } from 'attnscope/pool';
export async function poolCheck() {
  let pool;
  try {
    const scope = await createAttnScope({ preload: true });
    pool = await createAttnPool({ workers: 2, preload: true });
    const options = { query: 'the quick brown fox jumps over the lazy dog', heads: 4 };
    const a = await pool.attend(options), b = scope.attend(options);
    const same = (x, y) => x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
    return \`pool: \${pool.workers} workers, attend \${same(a.weights, b.weights) && same(a.output, b.output) ? 'equal to' : 'unlike'} the scope's\`;
  } catch (e) {
    return 'pool error: ' + (e && e.message || e);
  } finally {
    if (pool) await pool.dispose();
  }
}
`,
  'src/main.js': `import { run } from './run.js';
import { poolCheck } from './pool.js';
function show(id, text) { const pre = document.createElement('pre'); pre.id = id; pre.textContent = text; document.body.append(pre); }
run().then((text) => show('main', text)).then(() => poolCheck()).then((text) => show('pool', text));
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onmessage = (e) => show('worker', e.data);
worker.onerror = (e) => show('worker', 'error: ' + e.message);
`,
  'src/worker.js': `import { run } from './run.js';
run().then((text) => postMessage(text));
`,
};

function writeApp(dir) {
  for (const [file, text] of Object.entries(APP_FILES)) {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
}

/** Every file under `dir`, with its size. */
function listFiles(dir, prefix = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name), `${prefix}${e.name}/`)
    : [{ file: prefix + e.name, bytes: statSync(join(dir, e.name)).size }]));
}

/**
 * The JS an app ships must not name a file the package does not ship, nor a path of the build machine
 * (an absolute file:/// URL, or the temporary or project folder). The element's message for a page
 * opened from disk says "file://" in words; that is not a path.
 */
function assertPortable(dir, label) {
  for (const { file } of listFiles(dir).filter((f) => /\.m?js$/.test(f.file))) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const bad of ['attnscope-wasm.wasm', 'attnscope-scalar-wasm.wasm', 'file:///', tmp, ROOT]) {
      assert.ok(!text.includes(bad), `${label} ${file} contains ${bad}`);
    }
  }
}

function sizeReport(dir) {
  const files = listFiles(dir).sort((a, b) => a.file.localeCompare(b.file));
  const js = files.filter((f) => /\.m?js$/.test(f.file)).reduce((n, f) => n + f.bytes, 0);
  return `${files.map((f) => `${f.file} ${f.bytes}`).join(', ')}; JavaScript total ${js} bytes`;
}

/** Loads the app at `url`: the README's lines from the main thread and from the module worker, and no failed request. */
async function assertAppRuns(url, label, { pool = true } = {}) {
  const { page, problems, console: log } = await openPage(url);
  try {
    await page.waitForSelector('#main', { timeout: 60_000 });
    await page.waitForSelector('#worker', { timeout: 60_000 });
    const main = await page.textContent('#main'), worker = await page.textContent('#worker');
    assert.equal(main, README_OUTPUT, `${label}, main thread\n${log.join('\n')}`);
    assert.equal(worker, README_OUTPUT, `${label}, module worker\n${log.join('\n')}`);
    if (pool) {
      await page.waitForSelector('#pool', { timeout: 60_000 });
      assert.equal(await page.textContent('#pool'), 'pool: 2 workers, attend equal to the scope\'s', `${label}, createAttnPool\n${log.join('\n')}`);
    }
    assert.deepEqual(problems, [], `${label}: failed requests or page errors`);
  } finally {
    await page.close();
  }
}

describe('bundlers with no configuration for attnscope: the README example in Chromium, main thread and module worker', () => {
  let cdnDir, builds;

  before(async () => {
    // The app is the temporary project itself (package.json, node_modules/attnscope, index.html, src/):
    // Vite and webpack each build it into their own folder, both at once.
    writeApp(app);
    builds = await Promise.all([buildVite(app), buildWebpack(app)]);
    // A plain page, the package's files served as a CDN serves them (the installed package folder).
    cdnDir = join(app, 'cdn');
    mkdirSync(cdnDir);
    writeFileSync(join(cdnDir, 'index.html'), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>CDN</title>
<body><script type="module">
${CDN_IMPORTS}const console = { log: (line) => { lines.push(line); } };
const lines = [];
${README_CODE.slice(IMPORT_LINE.length)}
const pre = document.createElement('pre'); pre.id = 'main'; pre.textContent = lines.join('\\n') + '\\n'; document.body.append(pre);
</script>
<script type="module">
const worker = new Worker('/worker.js', { type: 'module' });
worker.onmessage = (e) => { const pre = document.createElement('pre'); pre.id = 'worker'; pre.textContent = e.data; document.body.append(pre); };
</script>`);
    writeFileSync(join(cdnDir, 'worker.js'), `${CDN_IMPORTS}const lines = [];
const console = { log: (line) => { lines.push(line); } };
${README_CODE.slice(IMPORT_LINE.length)}
postMessage(lines.join('\\n') + '\\n');
`);
    for (const f of readdirSync(join(app, 'node_modules/attnscope/dist'))) {
      mkdirSync(join(cdnDir, 'attnscope/dist'), { recursive: true });
      copyFileSync(join(app, 'node_modules/attnscope/dist', f), join(cdnDir, 'attnscope/dist', f));
    }
  });

  test('Vite 8 production build (vite build, no config file)', async (t) => {
    const { out, warnings } = builds[0];
    t.diagnostic(`vite build output: ${sizeReport(out)}`);
    // Rolldown reports slow plugin callbacks on a busy machine: advice about the build's speed, not a fault.
    assert.deepEqual(warnings.filter((w) => !/PLUGIN_TIMINGS/.test(w)), [], 'vite build warnings');
    assertPortable(out, 'vite build');
    const site = await serve(out);
    try { await assertAppRuns(`${site.origin}/`, 'vite build'); } finally { await site.close(); }
  });

  for (const pkg of ['vite5', 'vite6', 'vite7']) {
    test(`Vite ${pkg.slice(4)} production build (vite build, no config file): the app, its own worker and the pool`, async (t) => {
      // Vite 5 to 7 build workers as classic scripts, which cannot split code: the package's worker
      // and an app's worker that imports the package must each be one chunk (they failed the build).
      const { out, warnings } = await buildVite(app, pkg);
      t.diagnostic(`${pkg} build output: ${sizeReport(out)}`);
      assert.deepEqual(warnings, [], `${pkg} build warnings`);
      assertPortable(out, `${pkg} build`);
      const site = await serve(out);
      try { await assertAppRuns(`${site.origin}/`, `${pkg} build`); } finally { await site.close(); }
    });
  }

  test('Vite 8 dev server', async () => {
    const { createServer: createViteServer } = await import('vite');
    const server = await createViteServer({ root: app, configFile: false, logLevel: 'silent', clearScreen: false,
      server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false }, cacheDir: join(app, '.vite-cache') });
    await server.listen();
    try {
      const { port } = server.httpServer.address();
      await assertAppRuns(`http://127.0.0.1:${port}/`, 'vite dev');
    } finally {
      await server.close();
    }
  });

  test('webpack 5 production build (only entry and output configured)', async (t) => {
    const { out, errors, warnings } = builds[1];
    t.diagnostic(`webpack output: ${sizeReport(out)}`);
    assert.deepEqual(errors, [], 'webpack errors');
    // webpack's performance hints flag any asset over 244 KiB (the 5.6 MB vocabulary): advice, not a fault.
    const real = warnings.filter((w) => !/asset size limit|entrypoint size limit|webpack performance recommendations/.test(w));
    assert.deepEqual(real, [], 'webpack warnings (a "Critical dependency" one would be here)');
    assertPortable(out, 'webpack');
    const site = await serve(out);
    try { await assertAppRuns(`${site.origin}/`, 'webpack'); } finally { await site.close(); }
  });

  test('a plain page importing the package\'s files from a static host (CDN), no bundler', async () => {
    const site = await serve(cdnDir);
    try { await assertAppRuns(`${site.origin}/`, 'CDN', { pool: false }); } finally { await site.close(); }
  });
});

// ---- assets an app opts into: an app that imports only the core ships only the wasm ---------------------

describe('assets an app opts into: the core alone, and the core with the model (Vite 8 and webpack 5, no configuration)', () => {
  // The budget of an app that never loads the model or a vocabulary (issue 36): its whole output under
  // 2 MB (decimal), no file over 1 MB. The three wasm builds are 1.88 MB of it.
  const APP_LIMIT = 2_000_000, FILE_LIMIT = 1_000_000;
  const LICENSE = readFileSync(join(DIST, 'use-lite.LICENSE'));
  const MODEL_BYTES = statSync(join(DIST, 'use-lite.bin')).size;
  let core, withModel;

  function writeSmallApp(dir, main) {
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>app</title>\n' +
      '<script type="module" src="./src/main.js"></script>\n<body>\n');
    writeFileSync(join(dir, 'src/main.js'), main);
    return dir;
  }

  before(async () => {
    // The core alone: attention() on the app's own arrays; then what loadModel() and loadVocabulary() say
    // in an app that did not opt into them.
    const coreDir = writeSmallApp(join(app, 'core-app'), `
      import { createAttnScope } from 'attnscope';
      window.results = (async () => {
        const scope = await createAttnScope();
        const r = scope.attention(new Float32Array([1, 0, 0, 1]), new Float32Array([1, 0, 0, 1, 1, 1]), new Float32Array([1, 2, 3]),
          { nq: 2, nk: 3, d: 2, dv: 1, score: 'dot' });
        const out = { weights: Array.from(r.weights), output: Array.from(r.output), build: scope.variants.build };
        try { await scope.loadModel(); out.model = 'loaded'; } catch (e) { out.model = e.message; }
        try { await scope.loadVocabulary(); out.vocabulary = 'loaded'; } catch (e) { out.vocabulary = e.message; }
        return out;
      })().catch((e) => ({ error: String(e && e.message || e) }));`);
    // The core and the model: import 'attnscope/model' and scope.loadModel() with no argument.
    const modelDir = writeSmallApp(join(app, 'model-app'), `
      import { createAttnScope } from 'attnscope';
      import useLite from 'attnscope/model';
      window.results = (async () => {
        const scope = await createAttnScope();
        const model = await scope.loadModel();
        const r = model.encode('The cat sat on the mat.');
        const license = await (await fetch(useLite.license)).text();
        // Kept in the Cache API store after the first download: the second load makes no request.
        model.dispose();
        const again = await scope.loadModel();
        const same = Array.from(again.encode('The cat sat on the mat.').attentions).every((x, i) => x === r.attentions[i]);
        return { from: [model.loadedFrom, again.loadedFrom], same, layers: model.layers, heads: model.heads, tokens: r.tokens, n: r.n, attentions: r.attentions.length, embedding: r.embedding.length,
          license: license.slice(0, 200), licenseName: useLite.licenseName };
      })().catch((e) => ({ error: String(e && e.message || e) }));`);
    // Both inside the temporary project: 'attnscope' resolves to its node_modules/attnscope.
    const [coreVite, coreWebpack, modelVite, modelWebpack] = await Promise.all([buildVite(coreDir), buildWebpack(coreDir), buildVite(modelDir), buildWebpack(modelDir)]);
    core = { vite: coreVite, webpack: coreWebpack };
    withModel = { vite: modelVite, webpack: modelWebpack };
  });

  for (const bundler of ['vite', 'webpack']) {
    test(`${bundler}: an app calling only createAttnScope() and attention() ships under 2 MB, no file over 1 MB, no model or vocabulary`, async (t) => {
      const { out, warnings = [], errors = [] } = core[bundler];
      const files = listFiles(out);
      const total = files.reduce((n, f) => n + f.bytes, 0);
      t.diagnostic(`${bundler}, core only: ${total} bytes in all; ${sizeReport(out)}`);
      assert.deepEqual(errors, []);
      assert.deepEqual(warnings.filter((w) => !/PLUGIN_TIMINGS|asset size limit|entrypoint size limit|performance recommendations/.test(w)), []);
      assert.ok(total < APP_LIMIT, `the app's output is ${total} bytes, over ${APP_LIMIT}: ${sizeReport(out)}`);
      for (const f of files) assert.ok(f.bytes < FILE_LIMIT, `${f.file} is ${f.bytes} bytes, over ${FILE_LIMIT}`);
      assert.deepEqual(files.filter((f) => /\.(bin|LICENSE)$/.test(f.file) || /pool-worker/.test(f.file)), [], 'no data file, licence or pool worker');
      assert.equal(files.filter((f) => f.file.endsWith('.wasm')).length, 3, 'the three wasm builds (relaxed SIMD, SIMD, scalar), chosen at run time');
      assertPortable(out, `${bundler} (core app)`);
      const site = await serve(out);
      const { page, problems } = await openPage(`${site.origin}/`);
      try {
        await page.waitForFunction(() => window.results !== undefined, null, { timeout: 30_000 });
        const got = await page.evaluate(() => window.results);
        assert.ok(!got.error, got.error);
        assert.equal(got.build, 'relaxed-simd');
        // softmax of the dot products [1, 0, 1] and [0, 1, 1] over V = [1, 2, 3]
        const e = Math.E, want = [(e + 2 + 3 * e) / (2 * e + 1), (1 + 2 * e + 3 * e) / (2 * e + 1)];
        got.output.forEach((x, i) => assert.ok(Math.abs(x - want[i]) < 1e-5, `output[${i}] = ${x}, expected ${want[i]}`));
        // Not opted in: each message names the import to add, and nothing was fetched for it.
        assert.match(got.model, /use-lite\.bin is an asset your app opts into: add import 'attnscope\/model'; once/);
        assert.match(got.vocabulary, /glove-50k\.bin is an asset your app opts into: add import 'attnscope\/vocab-50k'; once/);
        assert.deepEqual(site.requests.filter((p) => /\.(bin|LICENSE)$/.test(p)), []);
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
        await site.close();
      }
    });
  }

  test('an app that imports \'attnscope/model\' ships the model and its licence (Vite 8 and webpack 5); scope.loadModel() finds them', async (t) => {
    for (const bundler of ['vite', 'webpack']) {
      const { out, errors = [] } = withModel[bundler];
      assert.deepEqual(errors, []);
      const files = listFiles(out);
      t.diagnostic(`${bundler}, with the model: ${sizeReport(out)}`);
      assert.equal(files.filter((f) => f.bytes === MODEL_BYTES).length, 1, `${bundler}: the model file (${MODEL_BYTES} bytes) is in the output`);
      assert.equal(files.filter((f) => f.bytes === LICENSE.length && readFileSync(join(out, f.file)).equals(LICENSE)).length, 1,
        `${bundler}: use-lite.LICENSE travels with it: ${files.map((f) => f.file).join(', ')}`);
      assert.deepEqual(files.filter((f) => /glove/.test(f.file) || f.bytes === statSync(join(DIST, 'glove-50k.bin')).size), [], 'no vocabulary');
    }
    const site = await serve(withModel.vite.out);
    const { page, problems } = await openPage(`${site.origin}/`);
    try {
      await page.waitForFunction(() => window.results !== undefined, null, { timeout: 60_000 });
      const got = await page.evaluate(() => window.results);
      assert.ok(!got.error, got.error);
      assert.deepEqual([got.layers, got.heads, got.embedding], [2, 4, 512]);
      assert.ok(got.tokens.length > 3, got.tokens.join(' '));
      assert.equal(got.attentions, 2 * 4 * got.n * got.n);
      assert.deepEqual(got.from, ['network', 'cache']);
      assert.equal(got.same, true, 'the cached model gives the downloaded one\'s numbers');
      assert.equal(site.requests.filter((p) => /use-lite.*\.bin$/.test(p)).length, 1, `one download of the model: ${site.requests.join(', ')}`);
      assert.equal(got.licenseName, 'Apache-2.0');
      assert.match(got.license, /^The weights and vocabulary in use-lite\.bin are Google's Universal Sentence Encoder Lite/);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
      await site.close();
    }
  });
});

// ---- VitePress: a documentation site with the element and the model, no configuration -------------------

describe('a VitePress 1 site (Vite 5) with no configuration: the element, the model view and the core', () => {
  // VitePress 1.6.4 builds with Vite 5; a page's <script setup> imports the package as a site author
  // would, and the markdown holds two <attn-scope> elements, the second showing the model with no
  // model-src: it finds use-lite.bin where the bundler put it (before, it asked for /use-lite.bin: 404).
  const SENTENCE = 'The animal didn\'t cross the street because it was too tired.';
  let out;

  before(async () => {
    const dir = join(app, 'vitepress-site');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'index.md'), `# attnscope in VitePress

<script setup>
import { createAttnScope } from 'attnscope'
import 'attnscope/element'
import 'attnscope/model'
if (!import.meta.env.SSR) {
  window.results = (async () => {
    const scope = await createAttnScope()
    const r = scope.attention(new Float32Array([1, 0, 0, 1]), new Float32Array([1, 0, 0, 1]), new Float32Array([1, 2]), { nq: 2, nk: 2, d: 2, dv: 1 })
    return { output: Array.from(r.output) }
  })().catch((e) => ({ error: String(e && e.message || e) }))
}
</script>

<attn-scope id="explorer" query="The king spoke to the people." keys="The queen addressed the crowd." score="cosine" temperature="0.1"></attn-scope>

<attn-scope id="model" model="use-lite" query="${SENTENCE.replace(/'/g, '&#39;')}"></attn-scope>
`);
    // A VitePress site has vue installed beside vitepress (the compiled pages import it): the temporary
    // project gets this checkout's copy, the one VitePress itself runs with (one Vue on the page).
    if (!existsSync(join(app, 'node_modules/vue'))) symlinkSync(join(ROOT, 'node_modules/vue'), join(app, 'node_modules/vue'), 'dir');
    const { build } = await import('vitepress');
    out = join(app, 'vitepress-out');
    await build(dir, { outDir: out, logLevel: 'warn' });
  });

  test('vitepress build: the wasm, the 10,000 words and the model with its licence, each once; no 50,000 words', async (t) => {
    const files = listFiles(out);
    t.diagnostic(`vitepress build: ${files.reduce((n, f) => n + f.bytes, 0)} bytes in all; ${sizeReport(out)}`);
    const sizeIn = (f) => files.filter((x) => x.bytes === statSync(join(DIST, f)).size).length;
    for (const f of ['use-lite.bin', 'use-lite.LICENSE', 'glove-10k.bin', 'attnscope.wasm', 'attnscope-relaxed.wasm', 'attnscope-scalar.wasm']) {
      assert.equal(sizeIn(f), 1, `${f} once in the site: ${files.map((x) => x.file).join(', ')}`);
    }
    assert.equal(sizeIn('glove-50k.bin'), 0, 'no page imports attnscope/vocab-50k');
    assertPortable(out, 'vitepress build');
  });

  test('the site in Chromium: the explorer draws, the model view shows every head from the bundled model file, the core computes', async () => {
    const site = await serve(out);
    const { page, problems, console: log } = await openPage(`${site.origin}/`);
    try {
      try {
        await page.waitForFunction(() => window.results !== undefined && document.getElementById('explorer')?.result
          && document.getElementById('model')?.result, null, { timeout: 60_000 });
      } catch (e) {
        const state = await page.evaluate(() => ({ results: window.results !== undefined, defined: !!customElements.get('attn-scope'),
          texts: [...document.querySelectorAll('attn-scope')].map((el) => `${el.id}: ${el.shadowRoot?.textContent.slice(0, 300)}`) }));
        throw new Error(`${e.message}\n${JSON.stringify(state)}\n${problems.join('\n')}\n${log.join('\n')}`);
      }
      const got = await page.evaluate(() => window.results);
      assert.ok(!got.error, `${got.error}\n${log.join('\n')}`);
      assert.equal(got.output.length, 2);
      const explorer = await page.$eval('#explorer', (el) => ({ cells: el.shadowRoot.querySelectorAll('svg.heatmap g.cells rect').length, nq: el.result.nq, nk: el.result.nk }));
      assert.equal(explorer.cells, explorer.nq * explorer.nk);
      const heads = await page.$eval('#model', (el) => [...el.shadowRoot.querySelectorAll('#figure-model-heads g.panel .panel-title')].map((x) => x.textContent));
      assert.equal(heads.length, 8, heads.join(', '));
      const models = site.requests.filter((p) => /use-lite/.test(p));
      assert.equal(models.length, 1, `the model was fetched where the bundler put it: ${models.join(', ')}`);
      assert.match(models[0], /^\/assets\/use-lite\.[\w-]+\.bin$/);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
      await site.close();
    }
  });
});

// ---- an app with a bundler that imports the element: its wasm and vocabulary are assets, not base64 ----

describe('a Vite app that imports \'attnscope/element\'', () => {
  // Before the element's module imported the split build, it inlined the wasm and the vocabulary:
  // a Vite app importing it got one JavaScript chunk of 2.28 MB and Vite's warning about chunks over 500 kB.
  const CHUNK_LIMIT = 500 * 1024;
  let out, warnings;

  before(async () => {
    const dir = join(app, 'element-app');
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>element app</title>\n' +
      '<script type="module" src="./src/main.js"></script>\n<body>\n');
    writeFileSync(join(dir, 'src/main.js'), `
      import 'attnscope/element';
      const CASES = ${JSON.stringify(CASES)};
      const pick = ${PICK};
      window.results = new Promise((resolve) => {
        const el = document.createElement('attn-scope');
        el.setAttribute('query', CASES.cross.query);
        el.setAttribute('keys', CASES.cross.keys);
        el.addEventListener('attn-ready', () => resolve({ cross: pick(el.result), nq: el.result.nq, nk: el.result.nk,
          cells: el.shadowRoot.querySelectorAll('svg.heatmap g.cells rect').length }));
        el.addEventListener('attn-error', (ev) => resolve({ error: ev.detail.message }));
        document.body.append(el);
      });`);
    const { build } = await import('vite');
    warnings = [];
    const logger = { info() {}, warn: (m) => warnings.push(m), warnOnce: (m) => warnings.push(m), error: (m) => warnings.push(m),
      clearScreen() {}, hasErrorLogged: () => false, hasWarned: false };
    await build({ root: dir, configFile: false, customLogger: logger, logLevel: 'warn', build: { outDir: 'dist-vite' }, cacheDir: join(dir, '.vite-cache') });
    out = join(dir, 'dist-vite');
  });

  test('vite build: the wasm and the vocabulary are separate assets; every JavaScript chunk is under 500 kB; no warning', async (t) => {
    const files = listFiles(out);
    const js = files.filter((f) => /\.m?js$/.test(f.file)).sort((a, b) => b.bytes - a.bytes);
    t.diagnostic(`vite build of the element app: ${sizeReport(out)}; largest JavaScript chunk ${js[0].file} ${js[0].bytes} bytes`);
    assert.ok(js[0].bytes < CHUNK_LIMIT, `largest chunk ${js[0].file}: ${js[0].bytes} bytes`);
    const names = files.map((f) => f.file);
    assert.ok(names.some((f) => /attnscope-[\w-]*\.wasm$/.test(f) && !f.includes('scalar')), `the SIMD wasm is an asset: ${names.join(', ')}`);
    assert.ok(names.some((f) => /glove-10k-[\w-]*\.bin$/.test(f)), `the 10,000-word vocabulary is an asset: ${names.join(', ')}`);
    for (const { file } of js) {
      const text = readFileSync(join(out, file), 'utf8');
      assert.doesNotMatch(text, /[A-Za-z0-9+/]{20000}/, `${file} holds no long base64 run (an inlined wasm or vocabulary)`);
    }
    assert.deepEqual(warnings.filter((w) => !/PLUGIN_TIMINGS/.test(w)), [], 'vite build warnings (a chunk over 500 kB would be one)');
    assertPortable(out, 'vite build (element)');
  });

  test('the built app: <attn-scope> draws the split build\'s numbers (relaxed SIMD in Chromium), no request fails', async () => {
    const site = await serve(out);
    const { page, problems, console: log } = await openPage(`${site.origin}/`);
    try {
      await page.waitForFunction(() => window.results !== undefined, null, { timeout: 30_000 });
      const got = await page.evaluate(() => window.results);
      assert.ok(!got.error, `${got.error}\n${log.join('\n')}`);
      assert.deepEqual(got.cross, expected.relaxedSmall.cross);
      assert.equal(got.cells, got.nq * got.nk);
      assert.deepEqual(problems, []);
      const bins = site.requests.filter((p) => /\.(wasm|bin)$/.test(p));
      assert.equal(bins.length, 2, `one wasm and one vocabulary requested: ${bins.join(', ')}`);
      assert.ok(bins.some((p) => /glove-10k/.test(p)) && bins.some((p) => /attnscope-relaxed/.test(p)) && !bins.some((p) => /glove-50k|scalar/.test(p)), bins.join(', '));
    } finally {
      await page.close();
      await site.close();
    }
  });
});

// Vite 8 is the devDependency 'vite'; Vite 5, 6 and 7 are installed beside it as 'vite5', 'vite6' and
// 'vite7' (npm aliases): Vite 5 to 7 build a worker as a classic script, VitePress 1 uses Vite 5.
async function buildVite(root, pkg = 'vite') {
  const { build } = await import(pkg);
  const warnings = [];
  const logger = { info() {}, warn: (m) => warnings.push(m), warnOnce: (m) => warnings.push(m), error: (m) => warnings.push(m),
    clearScreen() {}, hasErrorLogged: () => false, hasWarned: false };
  const outDir = pkg === 'vite' ? 'dist-vite' : `dist-${pkg}`;
  await build({ root, configFile: false, customLogger: logger, logLevel: 'warn', build: { outDir }, cacheDir: join(root, `.${pkg}-cache`) });
  return { out: join(root, outDir), warnings };
}

async function buildWebpack(root) {
  const { default: webpack } = await import('webpack');
  const out = join(root, 'dist-webpack');
  const stats = await new Promise((resolve, reject) => {
    webpack({ mode: 'production', context: root, entry: './src/main.js', output: { path: out, clean: true } },
      (err, s) => (err ? reject(err) : resolve(s)));
  });
  const json = stats.toJson({ all: false, errors: true, warnings: true });
  copyFileSync(join(root, 'index.html'), join(out, 'index.html'));
  // webpack does not process index.html: point it at the bundle.
  writeFileSync(join(out, 'index.html'), readFileSync(join(out, 'index.html'), 'utf8').replace('./src/main.js', './main.js'));
  return { out, errors: json.errors.map((e) => e.message), warnings: json.warnings.map((w) => w.message) };
}
