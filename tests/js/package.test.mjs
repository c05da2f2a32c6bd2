// The published package, not the source tree: `npm pack` the project (dist/ must be built), install
// the tarball into a fresh project under the OS temp folder, and there
//   - import it from Node (split and single-file builds) and run attend() on two sentences,
//   - bundle a tiny page with esbuild (`import { createAttnScope } from 'attnscope'`), serve it on
//     127.0.0.1 and run it in Debian's Chromium through playwright-core, and the same for 'attnscope/single',
//   - type-check the example against the installed declarations (package.json "exports" → "types"),
// comparing every number with the same calls made on the source tree's dist/ in this process.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { DIST, ROOT, loadScope, loadSingleScope, tsc } from './helpers.mjs';

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

let tmp, app, tarball, packed, expected;

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

  const split = await loadScope(), scalar = await loadScope({ simd: false }), single = await loadSingleScope();
  expected = { split: runAll(split), scalar: runAll(scalar), single: runAll(single) };
});

after(() => {
  if (tmp && !KEEP) rmSync(tmp, { recursive: true, force: true });
  else if (tmp) console.log(`kept ${tmp}`);
});

describe('npm pack', () => {
  test('the tarball holds the package files and nothing else', () => {
    const files = packed.files.map((f) => f.path).sort();
    for (const f of ['package.json', 'README.md', 'dist/attnscope.mjs', 'dist/scope.mjs', 'dist/attnscope-wasm.mjs', 'dist/attnscope.wasm',
      'dist/attnscope-scalar-wasm.mjs', 'dist/attnscope-scalar.wasm', 'dist/attnscope.single.mjs', 'dist/attnscope.d.ts',
      'dist/attnscope.single.d.ts', 'dist/glove-50k.bin', 'dist/glove-10k.bin']) {
      assert.ok(files.includes(f), `${f} in the tarball (has ${files.join(', ')})`);
    }
    for (const f of files) assert.match(f, /^(package\.json|README\.md|LICEN[CS]E.*|dist\/[^/]+|docs\/[^/]+\.md)$/, `${f} should not be published`);
    console.log(`tarball ${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${files.length} files`);
  });

  test('installed: exports resolve the module, the single file, the wasm and the vocabulary subpaths', async () => {
    const script = `
      for (const s of ['attnscope', 'attnscope/single', 'attnscope/attnscope.wasm', 'attnscope/attnscope-scalar.wasm',
                       'attnscope/glove-50k.bin', 'attnscope/glove-10k.bin', 'attnscope/package.json',
                       'attnscope/element', 'attnscope/attnscope-element.js'])
        console.log(s + ' ' + import.meta.resolve(s));`;
    writeFileSync(join(app, 'resolve.mjs'), script);
    const { stdout } = await exec(process.execPath, ['resolve.mjs'], { cwd: app });
    const lines = Object.fromEntries(stdout.trim().split('\n').map((l) => l.split(' ')));
    assert.match(lines['attnscope'], /node_modules\/attnscope\/dist\/attnscope\.mjs$/);
    assert.match(lines['attnscope/single'], /node_modules\/attnscope\/dist\/attnscope\.single\.mjs$/);
    assert.match(lines['attnscope/element'], /node_modules\/attnscope\/dist\/attnscope-element\.mjs$/);
    assert.match(lines['attnscope/attnscope-element.js'], /node_modules\/attnscope\/dist\/attnscope-element\.js$/);
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
      const split = await createAttnScope();
      const out = { simd: engineHasSimd(), vocabulary: split.vocabulary, variants: split.variants, split: runAll(split),
                    scalar: runAll(await createAttnScope({ simd: false })), single: runAll(await createSingle()) };
      // locateFile: the wasm and the vocabulary moved to a folder of the app's choosing.
      fs.mkdirSync('assets', { recursive: true });
      for (const f of ['attnscope.wasm', 'glove-50k.bin']) fs.copyFileSync(new URL(import.meta.resolve('attnscope/' + f)), 'assets/' + f);
      const asked = [];
      const located = await createAttnScope({ locateFile: (p) => { asked.push(p); return new URL(p, new URL('./assets/', import.meta.url)).href; } });
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

  test('installed declarations: tsc --noEmit on the example, resolved through package.json exports', async () => {
    copyFileSync(join(ROOT, 'tests/js/types-example.ts'), join(app, 'types-example.ts'));
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], module: 'nodenext', moduleResolution: 'nodenext', types: [] },
      files: ['types-example.ts'],
    }, null, 2));
    const { code, output } = await tsc(join(app, 'tsconfig.json'), ROOT);
    assert.equal(code, 0, `tsc failed against the installed package:\n${output}`);
  });
});

describe('the installed package in a bundled page (esbuild) in Chromium', () => {
  let server, browser, origin;
  const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm',
    '.bin': 'application/octet-stream', '.json': 'application/json' };

  before(async () => {
    const esbuild = await import('esbuild');
    const src = join(app, 'src'), pub = join(app, 'public');
    mkdirSync(src, { recursive: true });
    mkdirSync(pub, { recursive: true });
    const pageScript = (from) => `
      import { createAttnScope, engineHasSimd } from '${from}';
      const CASES = ${JSON.stringify(CASES)};
      const pick = ${PICK};
      const runAll = (scope) => Object.fromEntries(Object.entries(CASES).map(([name, o]) => [name, pick(scope.attend(o))]));
      window.results = (async () => {
        try {
          const out = { simd: engineHasSimd(), main: runAll(await createAttnScope()) };
          ${from === 'attnscope' ? 'out.scalar = runAll(await createAttnScope({ simd: false }));' : ''}
          document.body.textContent = 'done';
          return out;
        } catch (e) { return { error: String(e && e.stack || e) }; }
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
    const common = { bundle: true, format: 'esm', platform: 'browser', target: 'es2020', absWorkingDir: app, logLevel: 'silent' };
    for (const name of ['page', 'page-single', 'page-element']) {
      const r = await esbuild.build({ ...common, entryPoints: [join(src, `${name}.js`)], outfile: join(pub, `${name}.js`) });
      assert.deepEqual(r.errors, []);
      writeFileSync(join(pub, `${name}.html`), `<!doctype html><meta charset="utf-8"><title>${name}</title><script type="module" src="${name}.js"></script><body>loading`);
    }
    // How a user ships the split build: the bundle looks for the wasm files and the vocabulary next to
    // itself (the package resolves them from import.meta.url, which is now the bundle's URL), so copy them
    // from node_modules/attnscope/dist/ into the folder the bundle is served from (or pass locateFile).
    // The single-file build needs nothing besides its bundle.
    for (const f of ['attnscope.wasm', 'attnscope-scalar.wasm', 'glove-50k.bin']) copyFileSync(join(app, 'node_modules/attnscope/dist', f), join(pub, f));

    server = createServer((req, res) => {
      const path = join(pub, decodeURIComponent(new URL(req.url, 'http://x').pathname));
      if (!path.startsWith(pub) || !existsSync(path)) { res.writeHead(404); res.end('not found'); return; }
      const body = readFileSync(path);
      res.writeHead(200, { 'content-type': MIME[extname(path)] ?? 'application/octet-stream', 'content-length': body.length });
      res.end(body);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${server.address().port}`;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await new Promise((resolve) => server.close(resolve));
  });

  async function runPage(name) {
    const page = await browser.newPage();
    const log = [];
    page.on('console', (m) => log.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => log.push(`requestfailed: ${r.url()}`));
    try {
      await page.goto(`${origin}/${name}.html`);
      await page.waitForFunction(() => window.results !== undefined, null, { timeout: 30_000 });
      const got = await page.evaluate(() => window.results);
      assert.ok(!got.error, `${name}: ${got.error}\n${log.join('\n')}`);
      return got;
    } finally {
      await page.close();
    }
  }

  test('import { createAttnScope } from \'attnscope\': attend() gives the source tree\'s numbers (SIMD and scalar wasm)', async () => {
    const got = await runPage('page');
    assert.equal(got.simd, true, 'Chromium has wasm SIMD');
    assert.deepEqual(got.main, expected.split, 'SIMD build in Chromium vs Node');
    assert.deepEqual(got.scalar, expected.scalar, 'scalar build in Chromium vs Node');
  });

  test('import { createAttnScope } from \'attnscope/single\': the single file alone, same numbers', async () => {
    const got = await runPage('page-single');
    assert.deepEqual(got.main, expected.single, 'single-file build in Chromium vs Node');
  });

  test('import \'attnscope/element\': <attn-scope> draws the single-file build\'s numbers', async () => {
    const got = await runPage('page-element');
    assert.deepEqual(got.main.cross, expected.single.cross, 'the element\'s result vs the single-file build in Node');
    assert.equal(got.cells, got.nq * got.nk);
  });
});
