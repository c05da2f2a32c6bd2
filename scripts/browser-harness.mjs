// Shared set-up for the browser tests (tests/e2e/) and the browser benchmarks (bench/): the static
// server (scripts/serve.mjs on a free port), Debian's chromium driven by playwright-core, the npm
// module loaded in node for the expected numbers, and a log of every request, console error and page
// error.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { setFlagsFromString } from 'node:v8';

/**
 * Chromium runs wasm relaxed SIMD by default, so the pages load attnscope-relaxed.wasm; node 20 has it
 * behind a flag. A test that compares a page's numbers with the npm module's in node calls this before
 * it loads the module (setup() does), so node loads the same build as the pages: the same V8 lowering
 * on the same machine gives the same bits. (Tests of the package in node alone leave node as it is.)
 */
export function relaxedSimdLikeChromium() {
  setFlagsFromString('--experimental-wasm-relaxed-simd');
}

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const outDir = join(root, 'test-output');

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Starts scripts/serve.mjs on 127.0.0.1 with a free port (serving dist/web, or `folder`); resolves { url, stop }. */
export function startServer(folder) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'scripts/serve.mjs'), ...(folder ? [folder] : [])], {
      env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '', err = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error(`serve.mjs did not start: ${out}${err}`)); }, 10000);
    child.stdout.on('data', (b) => {
      out += b;
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[0],
          // Safe to call twice (a test may stop the server early to take the network away).
          stop: () => new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) { done(); return; }
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
        });
      }
    });
    child.stderr.on('data', (b) => { err += b; });
    child.on('exit', (code) => { clearTimeout(timer); if (code) reject(new Error(`serve.mjs exited ${code}: ${err}`)); });
  });
}

/**
 * A browser context for pages opened from disk (file://), where no request may leave the machine:
 * every http(s) and ws(s) request is refused (routes added later take precedence, for what a test
 * answers itself).
 */
export async function offlineContext(browser, options = {}) {
  const context = await browser.newContext(options);
  await context.route(/^(https?|wss?):/, (route) => route.abort());
  return context;
}

/** Everything a test run needs; call close() at the end. */
export async function setup() {
  const index = join(root, 'dist/web/index.html');
  if (!existsSync(index)) throw new Error('dist/web/ is missing: run `npm run build` first');
  mkdirSync(outDir, { recursive: true });
  relaxedSimdLikeChromium();
  const { createAttnScope } = await import(pathToFileURL(join(root, 'dist/attnscope.mjs')).href);
  const scope = await createAttnScope({ preload: true });
  if (scope.variants.build !== 'relaxed-simd') throw new Error(`browser harness: node loaded the ${scope.variants.build} build, the pages load relaxed SIMD`);
  const server = await startServer();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const origin = new URL(server.url).origin;
  const log = { requests: [], outside: [], consoleErrors: [], pageErrors: [], dialogs: [] };

  /**
   * A fresh browser context (its own storage, so no service worker from an earlier test).
   * `own` is the origin the pages come from (another server's, for a test that starts one).
   */
  async function newContext(options = {}, own = origin) {
    const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1320, height: 1000 }, ...options });
    // Every request is recorded, the service worker's too; one that leaves the page's origin is
    // recorded apart and refused.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      log.requests.push(url);
      if (url.startsWith(own + '/') || url.startsWith('data:') || url.startsWith('blob:' + own)) return route.continue();
      log.outside.push(url);
      return route.abort();
    });
    // Console errors of workers (the service worker): pages' own are watched in watch().
    context.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.page()) log.consoleErrors.push(`[worker] ${msg.text()}`);
    });
    return context;
  }

  function watch(page) {
    page.on('console', (msg) => { if (msg.type() === 'error') log.consoleErrors.push(msg.text()); });
    page.on('pageerror', (e) => log.pageErrors.push(String(e)));
    page.on('dialog', (d) => { log.dialogs.push(d.message()); d.dismiss(); });
    return page;
  }

  /** Opens the page (with an optional hash) and waits until the module is loaded and the plots drawn. */
  async function open(context, hash = '', base = server.url) {
    const page = watch(await context.newPage());
    await page.goto(base + hash);
    await page.waitForSelector('body.ready', { timeout: 30000 });
    return page;
  }

  return {
    scope, server, browser, origin, log, newContext, open, watch,
    async close() {
      await browser.close();
      await server.stop();
    },
  };
}

/** The options the page passes to attend() for a state (see web/pages/demo/demo.js compute()). */
export function attendOptions(s) {
  const o = {
    query: s.q, temperature: s.t ?? 0.1, heads: s.heads ?? 1, projection: s.proj ?? 'identity', seed: s.seed ?? 1,
    positional: !!s.pos, mask: s.mask ?? 'none', variant: s.variant ?? 'auto', maxTokens: 64, score: s.score ?? 'cosine',
  };
  if (s.k && s.k.trim()) o.keys = s.k;
  return o;
}

/** Parses the page's number format (3–4 significant digits, "−" for minus). */
export function parseShown(text) {
  return Number(String(text).replace(/−/g, '-').replace('∞', 'Infinity'));
}

/** A minimal RFC 4180 CSV parser (quoted cells, doubled quotes, newlines in quotes). */
export function parseCSV(text) {
  const rows = [];
  let row = [], cell = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; }
    else if (c !== '\r') cell += c;
  }
  if (cell || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

/**
 * Waits until the demo page has nothing being computed: its compute worker answered the last
 * change and the plots were redrawn (web/pages/demo/demo.js takes body.computing off then).
 */
export async function settled(page, timeout = 30000) {
  // First let events the action queued run (a same-document navigation's hashchange fires after
  // goto() returns), then wait for the computation they started.
  // (A frame, or 200 ms if none comes: a page the browser is not painting gets no animation frames.)
  await page.evaluate(() => new Promise((resolve) => { requestAnimationFrame(() => setTimeout(resolve, 0)); setTimeout(resolve, 200); }));
  await page.waitForFunction(() => document.body.classList.contains('ready') && !document.body.classList.contains('computing'),
    null, { timeout });
}

const ACTIONS = new Set(['fill', 'click', 'dblclick', 'selectOption', 'check', 'uncheck', 'press', 'type', 'setInputFiles',
  'dispatchEvent', 'tap', 'setChecked', 'pressSequentially', 'down', 'up', 'insertText', 'goto', 'reload', 'goBack', 'goForward']);
const CHAINS = new Set(['locator', 'nth', 'first', 'last', 'filter', 'getByRole', 'getByText', 'getByLabel', 'and', 'or']);

/**
 * The page (or a locator, or page.keyboard) with every user action followed by settled(page): the
 * demo computes in a worker, so a test that reads the plots right after typing waits for them.
 */
export function autoSettle(target, page = target) {
  return new Proxy(target, {
    get(obj, prop) {
      const v = Reflect.get(obj, prop, obj);
      if (prop === 'keyboard' || prop === 'mouse') return autoSettle(v, page);
      if (typeof v !== 'function') return v;
      if (ACTIONS.has(prop)) {
        return async (...args) => {
          const out = await v.apply(obj, args);
          await settled(page);
          return out;
        };
      }
      if (CHAINS.has(prop)) return (...args) => autoSettle(v.apply(obj, args), page);
      return v.bind(obj);
    },
  });
}

/**
 * What a screen reader conveys of a focused ARIA grid's cursor (web/shared/figures/aria-grid.js), as the
 * heatmap's readout says it: "Row 2, cat; column 3, sat: weight 0.1234 · score 1.2345": the active
 * descendant's row and column numbers, its row and column headers' texts (a word out of the
 * vocabulary keeps only its text) and the cell's name. locator: the grid (the heatmap's <svg>; CSS
 * locators pierce shadow roots). Resolves null when no cell is active.
 */
export function gridCursor(locator) {
  return locator.evaluate((grid) => {
    const id = grid.getAttribute('aria-activedescendant');
    const cell = id && grid.getRootNode().getElementById(id);
    if (!cell) return null;
    const hasHeader = !!grid.querySelector('[role="row"] [role="columnheader"]');
    const hasRowHead = !!grid.querySelector('[role="rowheader"]');
    const rowIndex = Number(cell.parentNode.getAttribute('aria-rowindex'));
    const colIndex = Number(cell.getAttribute('aria-colindex'));
    const text = (el) => (el ? el.textContent.replace(/ \(not in the vocabulary\)$/, '') : '');
    const rowHead = text(cell.parentNode.querySelector('[role="rowheader"]'));
    const colHead = text(grid.querySelector(`[role="columnheader"][aria-colindex="${colIndex}"]`));
    return `Row ${rowIndex - (hasHeader ? 1 : 0)}, ${rowHead}; column ${colIndex - (hasRowHead ? 1 : 0)}, ${colHead}: ${cell.getAttribute('aria-label')}`;
  });
}
