// Dropping a folder on the demo page. Playwright cannot drop a real folder, so the page gets the
// drop event a browser sends for one: its directory-entry tree (the FileSystemEntry calls the
// page makes: createReader().readEntries(), file()) built over real files, which the page fetches
// from the test server first.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Drops the folder `dir` (served at `url`, whose last segment names it) on the page's drop zone.
 * @param {import('playwright-core').Page} page
 * @param {string} dir the folder on disk (its files are listed here)
 * @param {string} url where the page fetches the folder's files (`${url}/a/b`)
 */
export async function dropFolder(page, dir, url) {
  const files = readdirSync(dir, { recursive: true })
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join('/'));
  await page.evaluate(
    async ({ url, name, files }) => {
      const root = { dirs: new Map(), files: [] };
      for (const f of files) {
        const parts = f.split('/');
        let node = root;
        for (const d of parts.slice(0, -1)) node = node.dirs.get(d) ?? node.dirs.set(d, { dirs: new Map(), files: [] }).get(d);
        node.files.push(new File([await (await fetch(`${url}/${f}`)).arrayBuffer()], parts.at(-1)));
      }
      const entry = (entryName, node) => ({
        name: entryName,
        isDirectory: true,
        isFile: false,
        createReader() {
          let given = false;
          const all = [...[...node.dirs].map(([n, d]) => entry(n, d)), ...node.files.map((file) => ({ name: file.name, isFile: true, isDirectory: false, file: (ok) => ok(file) }))];
          return { readEntries: (ok) => setTimeout(() => ok(given ? [] : ((given = true), all))) };
        },
      });
      window.droppedFolder = entry(name, root);
    },
    { url, name: path.basename(dir), files },
  );
  // The drop itself, separately: the caller may reset its request log between the two.
  return () =>
    page.evaluate(() => {
      const drop = new Event('drop', { bubbles: true, cancelable: true });
      Object.defineProperty(drop, 'dataTransfer', { value: { items: [{ kind: 'file', webkitGetAsEntry: () => window.droppedFolder }], files: [] } });
      document.getElementById('drop').dispatchEvent(drop);
    });
}
