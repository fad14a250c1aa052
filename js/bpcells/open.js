// bpcells.open() and bpcells.list(): a matrix directory or an HDF5 file, told apart by what is
// there (a directory, or the HDF5 signature "\x89HDF\r\n\x1a\n" at offset 0, 512, 1024, ...), not
// by the name. h5wasm is loaded only once an HDF5 signature has been seen.
import { BpcellsError, CODES } from '../errors.js';
import { probe } from '../hdf5/probe.js';
import { RangeDirectory, openDirectory } from '../io/directory.js';
import { isHttpUrl, isNode, localPath } from '../io/location.js';
import { openFile } from '../io/open.js';
import { RangeFile } from '../io/range-file.js';
import { checkOptionNames as checkIoOptionNames, ioOptionsOf } from '../io/options.js';
import { settled } from './as-bpcells-error.js';
import { openMatrix } from './open-matrix.js';

async function hdf5() {
  return import('./hdf5.js');
}

// Single-file inputs: bytes, Blobs/Files, and {size(), read(start, end)} objects (read taking two
// arguments, or any object when a group is asked for; directory objects take read(name, start, end)).
function isSingleFile(source, options) {
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return true;
  if (typeof Blob !== 'undefined' && source instanceof Blob) return true;
  if (source instanceof RangeDirectory) return false;
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

// A URL probed for the HDF5 signature that is no file (4xx: nothing there, or a directory's base)
// may be a directory; a failure of the network (after its retries), an abort or a file changed on
// the server says so, where looking for a directory instead ended in "version: file missing".
function unlessNetwork(err) {
  const refused = err?.status >= 400 && err?.status < 500 && ![408, 412, 429].includes(err.status); // not timed out, changed or busy
  if (err?.code === CODES.NOT_FOUND || (refused && err.code !== CODES.CHANGED)) return null;
  throw err;
}

/**
 * What `source` is: {kind: 'dir'} or {kind: 'hdf5', file, head}. URLs whose last segment has a
 * dot (or when a group is asked for) are probed for the HDF5 signature first; other URLs are
 * tried as directories first and probed only when that finds no `version` file.
 */
async function classify(source, options) {
  if (typeof URL !== 'undefined' && source instanceof URL) source = source.href;
  if (isSingleFile(source, options)) return probeFile(source, options, true);
  if (typeof source === 'string' && isHttpUrl(source)) {
    if (source.endsWith('/')) return { kind: 'dir', source };
    const last = new URL(source).pathname.split('/').pop();
    if (options.group !== undefined || last.includes('.')) {
      const r = await probeFile(source, options, false).catch(unlessNetwork);
      if (r) return r;
    }
    return { kind: 'dir', source, fallbackProbe: true };
  }
  if (typeof source === 'string' && isNode()) {
    const p = localPath(source); // a TypeError for an unsupported URL scheme
    if ((await localKind(p)) === 'file') return probeFile(p, options, true);
  }
  if (typeof source !== 'string' && !(source && typeof source === 'object')) {
    throw new TypeError(`cannot open ${String(source)}: pass a directory path, an http(s) URL or a {size, read} object (HDF5: also a File, Blob or bytes)`);
  }
  return { kind: 'dir', source };
}

// One HDF5 file through js/io. The HDF5 reader keeps its own block cache (js/hdf5/lazy-file.js),
// so js/io's cache, read-ahead and merging are off; options.blockSize and cacheBytes are that cache's.
function openHdf5Input(source, options) {
  return openFile(source, { ...ioOptionsOf(options), cacheBytes: 0, gap: 0, blockSize: 0 });
}

// {kind: 'hdf5', file, head} when the HDF5 signature is there; else null, or an error if `must`.
async function probeFile(source, options, must) {
  const file = openHdf5Input(source, options);
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

// The directory's files: a RangeDirectory given is used as it is.
function directory(source, options) {
  return source instanceof RangeDirectory ? source : openDirectory(source, ioOptionsOf(options));
}

// An HDF5 file given as a RangeFile keeps its own cap on requests in flight: HDF5's passes are
// merged to fit it, not js/io's default (more ranges would only wait in its queue).
function hdf5Options(source, options) {
  return source instanceof RangeFile && options.concurrency === undefined ? { ...options, concurrency: source.options.concurrency } : options;
}

async function openAny(source, options) {
  const c = await classify(source, options);
  if (c.kind === 'hdf5') return (await hdf5()).openHdf5File(c.file, c.head, hdf5Options(source, options));
  const files = directory(c.source, options);
  try {
    return await settled(openMatrix(files, options), files);
  } catch (err) {
    // A URL without a `version` under it may name an HDF5 file after all.
    if (c.fallbackProbe && err.code === CODES.NOT_FOUND && err.file === 'version') {
      const r = await probeFile(c.source, options, false).catch(unlessNetwork);
      if (r) return (await hdf5()).openHdf5File(r.file, r.head, options);
    }
    throw err;
  }
}

/**
 * Opens a BPCells matrix: a directory (local path, base URL, {size(name), read(name, s, e)}, an
 * io RangeDirectory) or a group of an HDF5 file (local path, URL, File/Blob, ArrayBuffer/Uint8Array,
 * {size(), read(s, e)}). options.group picks the HDF5 group (default: the file's only matrix group).
 */
export async function open(source, options = {}) {
  checkOptionNames('bpcells.open', options);
  return settled(openAny(source, options ?? {}));
}

// What open() and list() take besides the I/O layer's options; maxBytes is maxReadBytes' old name.
// A name that is neither is a TypeError, as for io.openFile: a typo ("retires") must not pass unseen.
const MATRIX_OPTIONS = ['group', 'prefetchBytes', 'hdf5TimeLimit'];

/** TypeError for an option name neither the I/O layer nor a matrix's opener takes; `what` names the call. */
export function checkOptionNames(what, options) {
  if (options === undefined || options === null) return;
  if (typeof options !== 'object') throw new TypeError(`${what}: options must be an object, got ${typeof options}`);
  checkIoOptionNames(options, { what, also: MATRIX_OPTIONS, quietly: ['maxBytes'] });
}

async function listAny(source, options) {
  const c = await classify(source, { ...options, group: options.group ?? null });
  if (c.kind !== 'hdf5') {
    const err = new BpcellsError(`list() takes an HDF5 file; ${String(source)} is not one (a matrix directory opens with open())`, {
      file: String(source),
    });
    err.notHdf5 = true; // what the caller may test (the CLI then opens it as a directory)
    throw err;
  }
  return (await hdf5()).listHdf5File(c.file, c.head, hdf5Options(source, options));
}

/** [{group, version, shape, storageOrder, nnz}] for every BPCells matrix group of an HDF5 file. */
export async function list(source, options = {}) {
  checkOptionNames('bpcells.list', options);
  return settled(listAny(source, options ?? {}));
}
