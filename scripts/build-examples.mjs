// Builds dist/examples/: the teaching examples of examples/ next to their own copy of the element's
// classic script, so the folder is self-contained — copy it anywhere (a USB stick, a course page, an
// e-mail attachment) and every page still opens from disk with no server. Each page loads the element
// with one relative tag, <script src="attnscope-element.js"></script>, exactly the README's snippet.
//   - lecture-note.html   copied as is (plain HTML, no build needed)
//   - slides.html         copied; reveal.js's dist CSS/JS copied into reveal/ beside it (no CDN)
//   - markdown-note.md    rendered by markdown-it (raw HTML on, so <attn-scope> passes through)
//                         into markdown-note.html
//   - notebook.ipynb      copied with its nbconvert template; tests/e2e/examples.test.mjs renders it
//                         with Debian's jupyter-nbconvert (see examples/README.md)
//   node scripts/build-examples.mjs
import MarkdownIt from 'markdown-it';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'examples');
const out = join(root, 'dist/examples');
const element = join(root, 'dist/attnscope-element.js');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

if (existsSync(element)) {
  copyFileSync(element, join(out, 'attnscope-element.js'));
} else {
  // Still build the pages (they are plain files), but say loudly that they cannot work yet.
  console.warn('build-examples: dist/attnscope-element.js is missing (the element build did not run): '
    + 'dist/examples/ has the pages but not the script they load');
}

// --- 1. the lecture note, and the small index page ----------------------------------------------------
for (const f of ['lecture-note.html', 'index.html']) copyFileSync(join(src, f), join(out, f));

// --- 2. the reveal.js deck: reveal's own dist files beside it, never a CDN ------------------------------
const require = createRequire(import.meta.url);
// Through the package's own exports: the classic (UMD) script, its CSS and one theme (fonts inlined).
mkdirSync(join(out, 'reveal/theme'), { recursive: true });
const revealJs = require.resolve('reveal.js');   // the "require" condition: dist/reveal.js, a classic script
copyFileSync(revealJs, join(out, 'reveal/reveal.js'));
copyFileSync(require.resolve('reveal.js/reveal.css'), join(out, 'reveal/reveal.css'));
copyFileSync(require.resolve('reveal.js/theme/white.css'), join(out, 'reveal/theme/white.css'));
copyFileSync(join(dirname(revealJs), '..', 'LICENSE'), join(out, 'reveal/LICENSE'));
copyFileSync(join(src, 'slides.html'), join(out, 'slides.html'));

// --- 3. the Markdown note -----------------------------------------------------------------------------
// html: true lets the <script> and <attn-scope> lines through untouched: a line that starts with a
// <script> tag, or holds nothing but an opening tag, starts an HTML block (CommonMark's rules 1 and 7)
// that runs to the blank line after it. An opening and closing tag on one line would instead be
// inline HTML wrapped in a <p>. typographer: curly quotes and dashes.
const md = new MarkdownIt({ html: true, typographer: true });
const mdSource = readFileSync(join(src, 'markdown-note.md'), 'utf8');
const title = /^#\s+(.+)$/m.exec(mdSource)?.[1] ?? 'attnscope note';
const page = readFileSync(join(src, 'markdown-page.html'), 'utf8');
if (!page.includes('{{title}}') || !page.includes('{{body}}')) throw new Error('build-examples: examples/markdown-page.html lacks {{title}} or {{body}}');
writeFileSync(join(out, 'markdown-note.html'),
  page.replace('{{title}}', md.utils.escapeHtml(title)).replace('{{body}}', () => md.render(mdSource)));

// --- 4. the notebook (rendered by the test, which needs jupyter-nbconvert) --------------------------------
for (const f of ['notebook.ipynb', 'nbconvert-offline.html.j2']) copyFileSync(join(src, f), join(out, f));

console.log(`dist/examples: lecture-note.html, slides.html (+ reveal/), markdown-note.html, notebook.ipynb${existsSync(element) ? ', attnscope-element.js' : ' — WITHOUT attnscope-element.js'}`);
