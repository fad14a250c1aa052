// Folders the demo is given as files (picked with a folder input, or dropped): a BPCells
// directory as a {size, read} source over its File objects; a dropped Zarr store's files.
import { sniffDirectory } from '../../js/sniff.js';

// A BPCells directory picked or dropped as files: a {size, read} source over File objects.
export function filesSource(files) {
  const byName = new Map(files.map((f) => [f.name, f]));
  return {
    size: async (name) => byName.get(name)?.size ?? null,
    read: async (name, start, end) => new Uint8Array(await byName.get(name).slice(start, end).arrayBuffer()),
  };
}

/**
 * What a picked or dropped folder holds, from the names of the files in it (`top`) and in each of
 * its folders (`subfolders`: name -> names), the same way for both: a Zarr store or a BPCells
 * matrix at its top; else a matrix in a folder inside it (`matrix/` first: the corpus layout);
 * else the one Zarr store in a folder inside it (a folder holding `weather.zarr/`; several are an
 * Error naming them); else its own files, read as a matrix (which fails naming the missing
 * "version"). {kind: 'zarr' | 'bpcells', sub: the folder inside, or null}
 */
export function chooseFolder(top, subfolders) {
  const kind = sniffDirectory(top);
  if (kind !== null) return { kind, sub: null };
  const holding = (k) => [...subfolders].filter(([, names]) => sniffDirectory(names) === k).map(([name]) => name).sort();
  const matrices = holding('bpcells');
  if (matrices.length > 0) return { kind: 'bpcells', sub: matrices.includes('matrix') ? 'matrix' : matrices[0] };
  const stores = holding('zarr');
  if (stores.length > 1) throw new Error(severalStores(stores));
  if (stores.length === 1) return { kind: 'zarr', sub: stores[0] };
  return { kind: 'bpcells', sub: null };
}

// The message for a folder holding several Zarr stores one folder down.
function severalStores(names) {
  const shown = names.length > 6 ? [...names.slice(0, 6), '…'] : names;
  return `the folder holds ${names.length} Zarr stores (${shown.join(', ')}): open one of them`;
}

/**
 * A picked folder's files (webkitRelativePath "folder/a/zarr.json"), as chooseFolder decides: a
 * Zarr store's ({zarr: the files below the store's folder, as filesZarrStore takes them, named
 * from there}) or a matrix's ({files: those directly in its folder}).
 */
export function pickedFolder(fileList) {
  const picked = [...fileList].map((f) => ({ f, p: (f.webkitRelativePath || f.name).split('/') }));
  const subfolders = new Map(); // every folder inside -> the names of the files directly in it
  for (const { p } of picked) {
    if (p.length < 3) continue;
    const names = subfolders.get(p[1]) ?? subfolders.set(p[1], []).get(p[1]);
    if (p.length === 3) names.push(p[2]);
  }
  const { kind, sub } = chooseFolder(
    picked.filter(({ p }) => p.length === 2).map(({ p }) => p[1]),
    subfolders,
  );
  const inside = ({ p }) => sub === null || (p.length > 2 && p[1] === sub);
  if (kind === 'zarr') return { zarr: picked.filter(inside).map(({ f, p }) => ({ path: (sub === null ? p : p.slice(1)).join('/'), open: async () => f })) };
  return { files: picked.filter(({ p }) => p.length === (sub === null ? 2 : 3) && inside({ p })).map(({ f }) => f) };
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
 * A dropped folder (a FileSystemDirectoryEntry), as chooseFolder decides: a Zarr store
 * ({zarr: [{path, open}]}, every file below the store's folder, path "store/a/zarr.json" as a
 * folder picker names them, open() its File, asked for only when the store reads it) or a BPCells
 * directory ({files}: the files directly in its folder).
 */
export async function readDroppedFolder(entry) {
  const entries = await entriesOf(entry);
  const names = (list) => list.map((e) => e.name);
  let listed = new Map(); // subfolder name -> {dir, entries}: listed only when the top says nothing
  if (sniffDirectory(names(entries)) === null) {
    const dirs = entries.filter((e) => e.isDirectory);
    const lists = await Promise.all(dirs.map(entriesOf)); // listed together
    listed = new Map(dirs.map((dir, i) => [dir.name, { dir, entries: lists[i] }]));
  }
  const { kind, sub } = chooseFolder(names(entries), new Map([...listed].map(([name, l]) => [name, names(l.entries)])));
  const [dir, list] = sub === null ? [entry, entries] : [listed.get(sub).dir, listed.get(sub).entries];
  if (kind === 'zarr') return { zarr: await storeFiles(dir, list) };
  return { files: await Promise.all(list.filter((e) => e.isFile).map(fileOf)) };
}
