// Folders the demo is given as files (picked with a folder input, or dropped): a BPCells
// directory as a {size, read} source over its File objects; a dropped Zarr store's files.
import { sniffDirectory } from '../../js/sniff.js';
import { severalStores } from './zarr-files-store.js';

// A BPCells directory picked or dropped as files: a {size, read} source over File objects.
export function filesSource(files) {
  const byName = new Map(files.map((f) => [f.name, f]));
  return {
    size: async (name) => byName.get(name)?.size ?? null,
    read: async (name, start, end) => new Uint8Array(await byName.get(name).slice(start, end).arrayBuffer()),
  };
}

// Files directly inside a picked folder (webkitRelativePath "folder/name"); a folder holding a
// `matrix/` subfolder (the corpus layout) opens that.
export function topLevelFiles(fileList) {
  const files = [...fileList];
  const depth = (f) => (f.webkitRelativePath || f.name).split('/').length;
  const hasVersionAt = (d) => sniffDirectory(files.filter((f) => depth(f) === d).map((f) => f.name)) === 'bpcells';
  const d = hasVersionAt(2) ? 2 : hasVersionAt(3) ? 3 : 2;
  return files.filter((f) => depth(f) === d);
}

// A directory entry's entries (readEntries gives them in batches), and a file entry's File.
const entriesOf = (dir) =>
  new Promise((resolve, reject) => {
    const reader = dir.createReader();
    const out = [];
    const next = () => reader.readEntries((batch) => (batch.length ? (out.push(...batch), next()) : resolve(out)), reject);
    next();
  });
const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));

// Deeper than this is no Zarr store but a loop (a link back up the tree).
const MAX_DEPTH = 64;

// Every file below a Zarr store's folder entry `dir` (its entries already read: `listed`), as
// {path: "store/a/zarr.json", open()}.
async function storeFiles(dir, listed) {
  const zarr = [];
  const walk = async (folder, prefix, depth, entries = null) => {
    if (depth > MAX_DEPTH) throw new Error(`${prefix} is more than ${MAX_DEPTH} folders deep (a link loop?)`);
    const subfolders = [];
    for (const e of entries ?? (await entriesOf(folder))) {
      if (e.isDirectory) subfolders.push(walk(e, `${prefix}${e.name}/`, depth + 1));
      else if (e.isFile) {
        let file = null;
        zarr.push({ path: `${prefix}${e.name}`, open: () => (file ??= fileOf(e)) });
      }
    }
    await Promise.all(subfolders); // sibling folders listed together
  };
  await walk(dir, `${dir.name}/`, 0, listed);
  return zarr;
}

/**
 * A dropped folder (a FileSystemDirectoryEntry): a Zarr store ({zarr: [{path, open}]}, every file
 * below it, path "folder/a/zarr.json" as a folder picker names them, open() its File, asked for
 * only when the store reads it), at its top or the one store among its subfolders; or a BPCells
 * directory ({files}: the files directly in it, or in its `matrix/` subfolder).
 */
export async function readDroppedFolder(entry) {
  let entries = await entriesOf(entry);
  const kind = sniffDirectory(entries.map((e) => e.name));
  if (kind === 'zarr') return { zarr: await storeFiles(entry, entries) };
  if (kind !== 'bpcells') {
    const sub = entries.find((e) => e.isDirectory && e.name === 'matrix');
    if (sub) entries = await entriesOf(sub);
    else {
      // A folder holding a store (`weather.zarr/`): each subfolder's names say (listed together).
      const subfolders = entries.filter((e) => e.isDirectory);
      const listed = await Promise.all(subfolders.map(entriesOf));
      const stores = subfolders.map((dir, i) => ({ dir, entries: listed[i] })).filter((s) => sniffDirectory(s.entries.map((e) => e.name)) === 'zarr');
      if (stores.length > 1) throw new Error(severalStores(stores.map((s) => s.dir.name).sort()));
      if (stores.length === 1) return { zarr: await storeFiles(stores[0].dir, stores[0].entries) };
    }
  }
  return { files: await Promise.all(entries.filter((e) => e.isFile).map(fileOf)) };
}
