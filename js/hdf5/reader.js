// Operations on one HDF5 file through h5wasm (an Hdf5Handle, handle.js): its groups, object
// types, string attributes, dataset metadata, element ranges of 1-D datasets and strings. Every
// read is bounded by what the file could hold, so a damaged length field fails here rather than
// allocating gigabytes. Errors are Hdf5Errors naming the file (`file`) and the object (`dataset`:
// "/mat/idxptr", "/mat@version").
import { Hdf5Error } from '../errors.js';
import { HEAP_FIRST_READ, openHandle } from './handle.js';

/** HDF5's datatype classes (H5T_class_t) that h5wasm's metadata reports. */
export const H5T_INTEGER = 0;
export const H5T_FLOAT = 1;
export const H5T_STRING = 3;
// The largest factor by which deflate can expand data: a filtered dataset may claim at most this
// many bytes per byte of the file before reading it would be an allocation the file has not earned.
const MAX_EXPANSION = 1032;
// A read across at most this many chunks is split into one read per chunk over async sources.
const MAX_SPLIT_CHUNKS = 16;

/** A datatype as words ("uint32", "float64", "variable-length string"). */
export function describeType(md) {
  if (!md) return 'unknown';
  if (md.type === H5T_INTEGER) return `${md.signed ? 'int' : 'uint'}${md.size * 8}`;
  if (md.type === H5T_FLOAT) return `float${md.size * 8}`;
  if (md.type === H5T_STRING) return md.vlen ? 'variable-length string' : `fixed-length string (${md.size} bytes)`;
  return `HDF5 type class ${md.type}`;
}

/** Normalises an object path: 'mat', '/mat/', 'a//counts' -> '/mat', '/a/counts'. */
export function normalizePath(group) {
  const parts = String(group)
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  return `/${parts.join('/')}`;
}

// Reads the strings of an h5wasm string buffer (vlen: char* pointers; fixed: padded bytes).
function decodeStrings(M, ptr, n, md) {
  const out = new Array(n);
  const heap = M.HEAPU8;
  const dec = new TextDecoder('utf-8');
  if (md.vlen) {
    const ptrs = new Uint32Array(heap.buffer, ptr, n).slice();
    for (let i = 0; i < n; i++) {
      const p = ptrs[i];
      if (p === 0) {
        out[i] = '';
        continue;
      }
      let e = p;
      while (heap[e] !== 0) e++;
      out[i] = dec.decode(heap.subarray(p, e));
    }
  } else {
    for (let i = 0; i < n; i++) {
      let bytes = heap.subarray(ptr + i * md.size, ptr + (i + 1) * md.size);
      const z = bytes.indexOf(0);
      if (z >= 0) bytes = bytes.subarray(0, z);
      else if (md.strpad === 2) {
        let e = bytes.length;
        while (e > 0 && bytes[e - 1] === 32) e--; // space-padded
        bytes = bytes.subarray(0, e);
      }
      out[i] = dec.decode(bytes);
    }
  }
  return out;
}

// `where`: the fields naming the object ({file, dataset}, Hdf5Reader.where).
function malloc(M, bytes, where) {
  const ptr = M._malloc(Math.max(1, bytes));
  if (!ptr) throw new Hdf5Error(`${where.dataset}: cannot allocate ${bytes} bytes in the HDF5 heap`, where);
  return ptr;
}

/** Operations on one HDF5 file (through an Hdf5Handle); shared by open() and list(). */
export class Hdf5Reader {
  constructor(handle) {
    this.handle = handle;
    this.index = handle.index; // chunk B-trees seen (chunk-index.js): what reads plan to fetch
    this.size = handle.lazy.size;
    this._meta = new Map();
  }

  get name() {
    return this.handle.name;
  }

  /** An error's fields for the object at `path` of this file. */
  where(path) {
    return { file: this.name, dataset: path };
  }

  /** True when the file reads synchronously (local files, buffers): no fetch rounds, no read-ahead to plan. */
  get synchronous() {
    return this.handle.lazy.sync;
  }

  /** Requests a fetch round may have in flight (js/io's concurrency). */
  get concurrency() {
    return this.handle.lazy.concurrency;
  }

  /** Releases the file (its node in h5wasm's file system, its cached blocks). */
  close() {
    this.handle.close();
  }

  /** Every group path in the file and whether it has a `version` attribute. */
  groups() {
    return this.handle.run('/', (M, fid) => {
      const names = M.get_names(fid, '/', true);
      const out = [];
      for (const n of ['', ...names]) {
        const p = `/${n}`;
        if (p !== '/' && M.get_type(fid, p) !== M.H5G_GROUP) continue;
        const attrs = M.get_attribute_names(fid, p);
        out.push({ group: p, matrix: attrs.includes('version') });
      }
      return out;
    });
  }

  /** Type of the object at path: 'group', 'dataset', 'other' or null when absent. */
  objectType(path) {
    return this.handle.run(path, (M, fid) => {
      // get_type needs every parent to exist.
      const parts = path.split('/').filter(Boolean);
      let p = '';
      for (let i = 0; i < parts.length; i++) {
        p += `/${parts[i]}`;
        const parent = i === 0 ? '/' : p.slice(0, p.lastIndexOf('/'));
        if (!M.get_names(fid, parent, false).includes(parts[i])) return null;
      }
      if (path === '/') return 'group';
      const t = M.get_type(fid, path);
      if (t === M.H5G_GROUP) return 'group';
      if (t === M.H5G_DATASET) return 'dataset';
      return 'other';
    });
  }

  /** The string attribute `name` of the object at `path` (must be a string, scalar or one value); null when absent. */
  stringAttribute(path, name) {
    const label = `${path === '/' ? '' : path}@${name}`;
    return this.handle.run(label, (M, fid) => {
      if (!M.get_attribute_names(fid, path).includes(name)) return null;
      const md = M.get_attribute_metadata(fid, path, name);
      if (md.type !== H5T_STRING) {
        throw new Hdf5Error(`${label}: is ${describeType(md)}, expected a string`, this.where(label));
      }
      const n = md.total_size;
      if (!(md.shape?.length === 0 || (md.shape?.length === 1 && n === 1))) {
        throw new Hdf5Error(`${label}: holds ${n} values (shape [${md.shape}]), expected one string`, this.where(label));
      }
      const bytes = md.size * Math.max(1, n);
      if (bytes > 1 << 20) throw new Hdf5Error(`${label}: ${bytes} bytes, too large for a version string`, this.where(label));
      const ptr = malloc(M, bytes, this.where(label));
      try {
        const status = M.get_attribute_data(fid, path, name, BigInt(ptr));
        if (status < 0) throw new Error('H5Aread failed');
        const [s] = decodeStrings(M, ptr, 1, md);
        if (md.vlen) M.reclaim_vlen_memory(fid, path, name, BigInt(ptr));
        return s;
      } finally {
        M._free(ptr);
      }
    });
  }

  /** Dataset metadata {type, size, signed, vlen, shape, chunks, filters} or null when absent. */
  datasetInfo(path) {
    if (!this._meta.has(path)) {
      const p = this.handle.run(path, (M, fid) => {
        const parent = path.slice(0, path.lastIndexOf('/')) || '/';
        const leaf = path.slice(path.lastIndexOf('/') + 1);
        if (!M.get_names(fid, parent, false).includes(leaf)) return null;
        if (M.get_type(fid, path) !== M.H5G_DATASET) {
          throw new Hdf5Error(`${path}: is not a dataset`, this.where(path));
        }
        const md = M.get_dataset_metadata(fid, path);
        const filters = M.get_dataset_filters(fid, path);
        return { ...md, filters: filters.map((f) => f.id) };
      });
      this._meta.set(path, p);
      p.catch(() => this._meta.delete(path));
    }
    return this._meta.get(path);
  }

  // Bytes a read may allocate for a dataset: what the file could have stored for it.
  _limit(info) {
    return info.filters.length > 0 ? MAX_EXPANSION * this.size + (1 << 20) : this.size;
  }

  /**
   * Elements [i0, i1) of a 1-D numeric dataset as little-endian bytes. Over async sources:
   * `near: {path, chunks, from, to}` names elements [from, to) of another dataset (`chunks`: its
   * chunk length) that a read will likely want next: the B-tree nodes leading to them are fetched
   * with this read's own misses (never their data: it is a guess). `warm: true` reads only until
   * HDF5 has found element i0's chunk (its B-tree nodes cached): resolves with undefined.
   */
  readElements(path, info, i0, i1, runOptions = {}) {
    const n = i1 - i0;
    this._checkBytes(path, info, n);
    if (n === 0) return Promise.resolve(new Uint8Array(0));
    // Over async sources a range across a few chunks is read chunk by chunk, together: HDF5 stops
    // at the first chunk it lacks, so one read would find the next chunk only a pass later.
    const chunk = info.chunks?.[0] ?? 0;
    if (!this.synchronous && chunk > 0) {
      const first = Math.floor(i0 / chunk);
      const last = Math.floor((i1 - 1) / chunk);
      if (last > first && last - first < MAX_SPLIT_CHUNKS) {
        const parts = [];
        for (let c = first; c <= last; c++) parts.push(this._readRun(path, info, Math.max(i0, c * chunk), Math.min(i1, (c + 1) * chunk), runOptions));
        return Promise.all(parts).then((all) => {
          const out = new Uint8Array((i1 - i0) * info.size);
          let at = 0;
          for (const p of all) {
            out.set(p, at);
            at += p.length;
          }
          return out;
        });
      }
    }
    return this._readRun(path, info, i0, i1, runOptions);
  }

  /**
   * Files read synchronously only: elements [i0, i1) written into `target` (a Uint8Array of their
   * bytes, such as a buffer in another module's wasm memory), now: no JS copy in between.
   */
  readElementsInto(path, info, i0, i1, target) {
    const bytes = this._checkBytes(path, info, i1 - i0);
    if (target.length !== bytes) throw new RangeError(`${path}: target holds ${target.length} bytes, values [${i0}, ${i1}) take ${bytes}`);
    if (bytes === 0) return target;
    const deliver = (heap) => {
      target.set(heap);
      return target;
    };
    return this.handle.runNow(path, this._readOp(path, i0, i1, bytes, deliver), { bytes });
  }

  // The bytes of n values of a dataset, refused beyond what the file could hold.
  _checkBytes(path, info, n) {
    const bytes = n * info.size;
    if (bytes > this._limit(info)) {
      throw new Hdf5Error(`${path}: reading ${n} values (${bytes} bytes) would exceed what a ${this.size}-byte file can hold`, this.where(path));
    }
    return bytes;
  }

  // The operation reading elements [i0, i1) (`bytes` bytes) into HDF5's heap; deliver(heapBytes)
  // takes them out before that memory is freed.
  _readOp(path, i0, i1, bytes, deliver) {
    return (M, fid) => {
      const ptr = malloc(M, bytes, this.where(path));
      try {
        const status = M.get_dataset_data(fid, path, [BigInt(i1 - i0)], [BigInt(i0)], [1n], BigInt(ptr));
        if (status < 0) throw new Error(`H5Dread failed for values [${i0}, ${i1})`);
        return deliver(M.HEAPU8.subarray(ptr, ptr + bytes));
      } finally {
        M._free(ptr);
      }
    };
  }

  // What a read over an async source fetches beside its misses: its chunks (or the B-tree nodes
  // leading to them), and the nodes leading to a `near` guess.
  _plan(path, info, i0, i1, { near, warm }) {
    const chunk = info.chunks?.[0] ?? 0;
    if (this.synchronous || (!(chunk > 0) && !near)) return null;
    // A chunk's stored bytes: at most its values (unfiltered), or a little more (deflate's worst case).
    const maxChunkBytes = 2 * chunk * info.size + 4096;
    return () => {
      const out = chunk > 0 ? this.index.plan(path, chunk, i0, i1, { nodesOnly: warm, maxChunkBytes }) : [];
      if (near) out.push(...this.index.plan(near.path, near.chunks, near.from, near.to, { nodesOnly: true }));
      return out;
    };
  }

  // Elements [i0, i1) (checked by readElements) in one HDF5 read.
  _readRun(path, info, i0, i1, runOptions = {}) {
    const n = i1 - i0;
    const bytes = n * info.size;
    const { near, warm, ...options } = runOptions;
    const chunk = info.chunks?.[0] ?? 0;
    const plan = this._plan(path, info, i0, i1, { near, warm });
    const settle = warm && chunk > 0 ? () => this.index.locate(path, i0, chunk)?.chunk !== undefined : null;
    return this.handle.run(path, this._readOp(path, i0, i1, bytes, (heap) => heap.slice()), { ...options, bytes, plan, settle });
  }

  /** Every string of a 1-D string dataset. */
  readStrings(path, info) {
    return this._strings(path, info, null);
  }

  /**
   * Over async sources: makes HDF5 read a string dataset up to, not including, the first global
   * heap collection its strings lie in (HDF5 reads its first 4 KiB, then the rest: 64 KiB in files
   * BPCells writes), so that a later readStrings fetches only that collection. Resolves undefined,
   * or the strings when nothing was missing.
   */
  warmStrings(path, info) {
    return this._strings(path, info, () => this.handle.lazy.missedBytes === HEAP_FIRST_READ);
  }

  _strings(path, info, settle) {
    const n = info.total_size;
    const bytes = n * info.size;
    // A variable-length string takes at least 16 bytes of the file (its global-heap ID)
    // unless the dataset is compressed.
    if (bytes > this._limit(info) || (info.vlen && info.filters.length === 0 && n * 16 > this.size)) {
      throw new Hdf5Error(`${path}: claims ${n} strings, more than a ${this.size}-byte file can hold`, this.where(path));
    }
    if (n === 0) return Promise.resolve([]);
    return this.handle.run(path, (M, fid) => {
      const ptr = malloc(M, bytes, this.where(path));
      let filled = false;
      try {
        const status = M.get_dataset_data(fid, path, null, null, null, BigInt(ptr));
        if (status < 0) throw new Error('H5Dread failed');
        filled = true;
        return decodeStrings(M, ptr, n, info);
      } finally {
        if (filled && info.vlen) M.reclaim_vlen_memory(fid, path, '', BigInt(ptr));
        M._free(ptr);
      }
    }, { bytes: bytes + this.size, heapAhead: true, settle }); // the pointers, and the strings: at most the file's bytes
  }
}

/**
 * Opens an HDF5 byte file (a js/io RangeFile) for reading; `head`: its first bytes when already
 * read (async sources). options: blockSize, cacheBytes (the lazy file's block cache), concurrency (requests a pass may have in flight), timeLimit (ms).
 */
export async function openHdf5(file, head, options = {}) {
  const handle = await openHandle(file, options);
  if (head) handle.lazy.seed(0, head);
  return new Hdf5Reader(handle);
}
