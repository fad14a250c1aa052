// A zarrita store over a picked folder (File objects with webkitRelativePath "folder/a/zarr.json"):
// get and getRange read only the file, or the bytes, asked for.

const METADATA_NAMES = new Set(['zarr.json', '.zarray', '.zgroup', '.zattrs', '.zmetadata']);

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
