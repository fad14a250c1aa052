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
 * @param {{unreadable?: string[], parent?: string}} [options] unreadable: names of files at the
 *   top whose File the browser cannot give (file() fails, as for a dangling link); parent: the
 *   name of a folder dropped instead, holding `dir` (and nothing else)
 */
export async function dropFolder(page, dir, url, { unreadable = [], parent = null } = {}) {
  const files = readdirSync(dir, { recursive: true })
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join('/'));
  await page.evaluate(
    async ({ url, name, files, unreadable, parent }) => {
      const root = { dirs: new Map(), files: [] };
      for (const f of files) {
        const parts = f.split('/');
        let node = root;
        for (const d of parts.slice(0, -1)) node = node.dirs.get(d) ?? node.dirs.set(d, { dirs: new Map(), files: [] }).get(d);
        node.files.push(new File([await (await fetch(`${url}/${f}`)).arrayBuffer()], parts.at(-1)));
      }
      const broken = (n) => ({ name: n, isFile: true, isDirectory: false, file: (ok, fail) => setTimeout(() => fail(new DOMException('A requested file or directory could not be found', 'NotFoundError'))) });
      const entry = (entryName, node, top) => ({
        name: entryName,
        isDirectory: true,
        isFile: false,
        createReader() {
          const all = [
            ...[...node.dirs].map(([n, d]) => entry(n, d, false)),
            ...node.files.map((file) => ({ name: file.name, isFile: true, isDirectory: false, file: (ok) => setTimeout(() => ok(file)) })),
            ...(top ? unreadable.map(broken) : []),
          ];
          // As Chromium does: at most 100 entries a call, then an empty batch.
          let at = 0;
          return { readEntries: (ok) => setTimeout(() => ok(all.slice(at, (at += 100)))) };
        },
      });
      window.droppedFolder = parent === null ? entry(name, root, true) : entry(parent, { dirs: new Map([[name, root]]), files: [] }, false);
    },
    { url, name: path.basename(dir), files, unreadable, parent },
  );
  // The drop itself, separately: the caller may reset its request log between the two.
  return () =>
    page.evaluate(() => {
      const drop = new Event('drop', { bubbles: true, cancelable: true });
      Object.defineProperty(drop, 'dataTransfer', { value: { items: [{ kind: 'file', webkitGetAsEntry: () => window.droppedFolder }], files: [] } });
      document.getElementById('drop').dispatchEvent(drop);
    });
}
