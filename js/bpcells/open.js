// bpcells.open() and bpcells.list(): a matrix directory or an HDF5 file, told apart by what is
// there (a directory, or the HDF5 signature "\x89HDF\r\n\x1a\n" at offset 0, 512, 1024, ...), not
// by the name. h5wasm is loaded only once an HDF5 signature has been seen.
import { BpcellsError } from '../errors.js';
import { openMatrix } from './open-matrix.js';
import { HttpSource, LocalDirSource, ObjectSource, toSource } from './sources.js';
import { openByteFile } from './byte-file.js';
import { probe } from '../hdf5/signature.js';

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

async function hdf5() {
  return import('./hdf5.js');
}

function isUrl(s) {
  return /^https?:\/\//i.test(s);
}

// Single-file inputs: bytes, Blobs/Files, and {size(), read(start, end)} objects (read taking two
// arguments, or any object when a group is asked for; directory objects take read(name, start, end)).
function isSingleFile(source, options) {
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return true;
  if (typeof Blob !== 'undefined' && source instanceof Blob) return true;
  if (source instanceof HttpSource || source instanceof LocalDirSource || source instanceof ObjectSource) return false;
  if (source && typeof source === 'object' && typeof source.read === 'function' && typeof source.size === 'function') {
    return options.group !== undefined || source.read.length === 2;
  }
  return false;
}

// A stat takes microseconds; synchronously when Node offers its fs without an import, which spares
// open() a trip through the thread pool.
async function localKind(p) {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs') ?? (await import(/* webpackIgnore: true */ 'node:fs/promises'));
  try {
    const st = fs.statSync ? fs.statSync(p) : await fs.stat(p);
    return st.isDirectory() ? 'dir' : 'file';
  } catch {
    return 'missing';
  }
}

/**
 * What `source` is: {kind: 'dir'} or {kind: 'hdf5', file, head}. URLs whose last segment has a
 * dot (or when a group is asked for) are probed for the HDF5 signature first; other URLs are
 * tried as directories first and probed only when that finds no `version` file.
 */
async function classify(source, options) {
  if (typeof URL !== 'undefined' && source instanceof URL) source = source.href;
  if (isSingleFile(source, options)) return probeFile(source, options, true);
  if (typeof source === 'string' && isUrl(source)) {
    if (source.endsWith('/')) return { kind: 'dir', source };
    const last = new URL(source).pathname.split('/').pop();
    if (options.group !== undefined || last.includes('.')) {
      const r = await probeFile(source, options, false).catch(() => null);
      if (r) return r;
    }
    return { kind: 'dir', source, fallbackProbe: true };
  }
  if (typeof source === 'string' && isNode && !/^[a-z][a-z0-9+.-]*:\/\//i.test(source.replace(/^file:/i, ''))) {
    const p = /^file:/i.test(source) ? decodeURIComponent(new URL(source).pathname) : source;
    if ((await localKind(p)) === 'file') return probeFile(p, options, true);
  }
  return { kind: 'dir', source };
}

// {kind: 'hdf5', file, head} when the HDF5 signature is there; else null, or an error if `must`.
async function probeFile(source, options, must) {
  const file = openByteFile(source, options);
  let r;
  try {
    r = await probe(file);
  } catch (err) {
    file.close();
    throw err;
  }
  if (r.hdf5) return { kind: 'hdf5', file, head: r.head };
  file.close();
  if (!must) return null;
  throw new BpcellsError(`${file.name}: neither a BPCells matrix directory nor an HDF5 file (no HDF5 signature at offset 0, 512, 1024, ...)`, {
    file: file.name,
  });
}

/**
 * Opens a BPCells matrix: a directory (local path, base URL, {size(name), read(name, s, e)}) or a
 * group of an HDF5 file (local path, URL, File/Blob, ArrayBuffer/Uint8Array, {size(), read(s, e)}).
 * options.group picks the HDF5 group (default: the file's only matrix group).
 */
export async function open(source, options = {}) {
  options = options ?? {};
  const c = await classify(source, options);
  if (c.kind === 'hdf5') return (await hdf5()).openHdf5File(c.file, c.head, options);
  try {
    return await openMatrix(toSource(c.source, options), options);
  } catch (err) {
    if (c.fallbackProbe && err instanceof BpcellsError && err.file === 'version' && /file missing/.test(err.message)) {
      const r = await probeFile(c.source, options, false).catch(() => null);
      if (r) return (await hdf5()).openHdf5File(r.file, r.head, options);
    }
    throw err;
  }
}

/** [{group, version, shape, storageOrder, nnz}] for every BPCells matrix group of an HDF5 file. */
export async function list(source, options = {}) {
  options = options ?? {};
  const c = await classify(source, { ...options, group: options.group ?? null });
  if (c.kind !== 'hdf5') {
    throw new BpcellsError(`list() takes an HDF5 file; ${String(source)} is not one (a matrix directory opens with open())`);
  }
  return (await hdf5()).listHdf5File(c.file, c.head, options);
}
