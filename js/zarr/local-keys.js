// Every metadata key of a Zarr store in a local directory (Node): what list() walks where no
// consolidated metadata names the hierarchy. Synchronous directory reads, like LocalStore's.
import { CODES, ZarrError } from '../errors.js';

const METADATA_FILES = new Set(['zarr.json', '.zarray', '.zgroup']);
const MAX_WALK = 100000; // directory entries visited at most

function nodeModules() {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs');
  const path = globalThis.process?.getBuiltinModule?.('node:path');
  if (!fs || !path) throw new ZarrError('zarr: local directories are read in Node only', { code: CODES.UNSUPPORTED });
  return { fs, path };
}

/**
 * The kind of what is at a local path: 'directory', 'file' or null (nothing there).
 * @param {string} target
 */
export function localKind(target) {
  const { fs } = nodeModules();
  try {
    return fs.statSync(target).isDirectory() ? 'directory' : 'file';
  } catch {
    return null;
  }
}

/**
 * The metadata keys under `root` ("/t2m/zarr.json", "/.zgroup"); chunk directories are walked too,
 * but only up to MAX_WALK entries in all.
 * @param {string} root the store's directory
 * @returns {string[]}
 */
export function metadataKeys(root) {
  const { fs, path } = nodeModules();
  const keys = [];
  let visited = 0;
  function walk(dir, rel) {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++visited > MAX_WALK) return;
      if (e.isFile() && METADATA_FILES.has(e.name)) keys.push(`${rel}/${e.name}`);
      // A chunk directory of a v3 array ("c") holds no metadata.
      else if (e.isDirectory() && !(e.name === 'c' && entries.some((f) => f.name === 'zarr.json'))) walk(path.join(dir, e.name), `${rel}/${e.name}`);
    }
  }
  walk(root, '');
  return keys;
}
