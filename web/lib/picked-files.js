// Folders the demo is given as files (picked with a folder input, or dropped): a BPCells
// directory as a {size, read} source over its File objects.
import { sniffDirectory } from '../../js/sniff.js';

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

/** The files of a dropped folder (a FileSystemDirectoryEntry), or of its `matrix/` subfolder. */
export async function readDroppedDirectory(entry) {
  const readAll = (reader) =>
    new Promise((resolve, reject) => {
      const out = [];
      const next = () => reader.readEntries((batch) => (batch.length ? (out.push(...batch), next()) : resolve(out)), reject);
      next();
    });
  let entries = await readAll(entry.createReader());
  if (sniffDirectory(entries.map((e) => e.name)) !== 'bpcells') {
    const sub = entries.find((e) => e.isDirectory && e.name === 'matrix');
    if (sub) entries = await readAll(sub.createReader());
  }
  const fileEntries = entries.filter((e) => e.isFile);
  return Promise.all(fileEntries.map((e) => new Promise((resolve, reject) => e.file(resolve, reject))));
}
