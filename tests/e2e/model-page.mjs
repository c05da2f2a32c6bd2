// What the model page's browser tests share (tests/e2e/model.test.mjs, model-worker.test.mjs): dropping
// files on the page as a real drop delivers them, and waiting until the page has drawn one.

/**
 * Drops files ({ name, bytes }) on the page's body: a DragEvent with a DataTransfer, as a real drop
 * delivers. The bytes travel as base64 (an array of numbers costs far more for a file of megabytes).
 */
export async function dropFiles(page, files) {
  await page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const f of list) {
      const bin = atob(f.b64);
      const u8 = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
      dt.items.add(new File([u8], f.name));
    }
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files.map((f) => ({ name: f.name, b64: Buffer.from(f.bytes).toString('base64') })));
}

/** Resolves the name of the next file the page draws; rejects with the notice's text if one shows first. */
export function nextModelLoad(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const notice = document.getElementById('notice');
    notice.hidden = true;
    const watch = new MutationObserver(() => {
      if (!notice.hidden) { watch.disconnect(); reject(new Error(`notice: ${document.getElementById('notice-text').textContent}`)); }
    });
    watch.observe(notice, { attributes: true, attributeFilter: ['hidden'] });
    document.addEventListener('model-loaded', (e) => { watch.disconnect(); resolve(e.detail.name); }, { once: true });
  }));
}
