// A zarrita store over a picked folder (File objects with webkitRelativePath "folder/a/zarr.json"):
// get and getRange read only the file, or the bytes, asked for.

import { sniffDirectory } from '../../js/sniff.js';

const METADATA_NAMES = new Set(['zarr.json', '.zarray', '.zgroup', '.zattrs', '.zmetadata']);

const pathOf = (f) => (f.webkitRelativePath || f.name).split('/');

// What the names of the picked files `depth` folders down say: 'zarr', 'bpcells' or null.
function kindAt(paths, depth, under = null) {
  const names = paths.filter((p) => p.length === depth + 1 && (under === null || p[depth - 1] === under)).map((p) => p[depth]);
  return sniffDirectory(names);
}

/**
 * The files of the Zarr store a picked folder holds, for filesZarrStore: the folder itself, or
 * the one store among its subfolders (a folder holding `weather.zarr/`: its files named from
 * there); null for none (nor when the folder is a BPCells matrix). Several stores one folder down
 * are an Error naming them.
 */
export function pickedZarrFiles(fileList) {
  const files = [...fileList];
  const paths = files.map(pathOf);
  const top = kindAt(paths, 1);
  if (top === 'zarr') return files;
  if (top === 'bpcells') return null;
  const subfolders = [...new Set(paths.filter((p) => p.length > 2).map((p) => p[1]))];
  const stores = subfolders.filter((sub) => kindAt(paths, 2, sub) === 'zarr').sort();
  if (stores.length > 1) throw new Error(severalStores(stores));
  if (stores.length === 0) return null;
  return files
    .map((f, i) => ({ f, p: paths[i] }))
    .filter(({ p }) => p.length > 2 && p[1] === stores[0])
    .map(({ f, p }) => ({ path: p.slice(1).join('/'), open: async () => f }));
}

/** The message for a folder holding several Zarr stores one folder down. */
export function severalStores(names) {
  const shown = names.length > 6 ? [...names.slice(0, 6), '…'] : names;
  return `the folder holds ${names.length} Zarr stores (${shown.join(', ')}): open one of them`;
}

// A picked File names its place itself (webkitRelativePath); a dropped folder's files come as
// {path, open(): Promise<File>} (web/lib/picked-files.js), each File asked for when it is read.
const placed = (f) => (f instanceof Blob ? { path: f.webkitRelativePath || f.name, open: async () => f } : f);

/** {store, listMetadataKeys, name} for the picked folder's files (or a dropped folder's {path, open}). */
export function filesZarrStore(fileList) {
  const byKey = new Map();
  let name = 'folder';
  for (const item of fileList) {
    const { path, open } = placed(item);
    const parts = path.split('/');
    name = parts[0] || name;
    byKey.set(`/${parts.slice(1).join('/')}`, open);
  }
  const store = {
    async get(key) {
      const f = await byKey.get(key)?.();
      return f ? new Uint8Array(await f.arrayBuffer()) : undefined;
    },
    async getRange(key, range) {
      const f = await byKey.get(key)?.();
      if (!f) return undefined;
      const start = 'suffixLength' in range ? Math.max(0, f.size - range.suffixLength) : range.offset;
      const end = 'suffixLength' in range ? f.size : range.offset + range.length;
      return new Uint8Array(await f.slice(start, end).arrayBuffer());
    },
  };
  const listMetadataKeys = async () => [...byKey.keys()].filter((k) => METADATA_NAMES.has(k.slice(k.lastIndexOf('/') + 1)));
  return { store, listMetadataKeys, name };
}
