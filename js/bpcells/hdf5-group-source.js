// A BPCells matrix group inside an HDF5 file, presented to the directory reader (matrix.js) as
// the named array files of a matrix directory, so that laziness and every structural check are
// shared with directories:
//   - numeric datasets become "files" of an 8-byte BPCells array header + little-endian values,
//     read by element range through h5wasm (a byte range maps to the elements holding it);
//   - string datasets (storage_order, row_names, col_names) and the group's `version` attribute
//     become text, one value per line (names are also handed over as arrays: readLines()).
// What only HDF5 can get wrong is checked here: a missing dataset or attribute, a dataset of the
// wrong type or rank, a non-string version. Errors name the dataset path ("/mat/idxptr") or
// the attribute ("/mat@version") in `err.file`.
import { BpcellsError } from '../errors.js';

const HEADER = 8;
const MAGIC = { u32: 'UINT32v1', u64: 'UINT64v1', f32: 'FLOATSv1', f64: 'DOUBLEv1' };
const ELEM = { u32: 4, u64: 8, f32: 4, f64: 8 };
const TEXT = new Set(['version', 'storage_order', 'row_names', 'col_names']);
const NUMERIC = new Set([
  'shape',
  'idxptr',
  'index',
  'val',
  'index_data',
  'index_idx',
  'index_idx_offsets',
  'index_starts',
  'val_data',
  'val_idx',
  'val_idx_offsets',
]);
const H5T_INTEGER = 0;
const H5T_FLOAT = 1;
const H5T_STRING = 3;
// The largest factor by which deflate can expand data: a filtered dataset may claim at most this
// many bytes per byte of the file before reading it would be an allocation the file has not earned.
const MAX_EXPANSION = 1032;
// Numeric datasets up to this size are read whole on first use.
const SMALL_WHOLE = 16 * 1024;

function describeType(md) {
  if (!md) return 'unknown';
  if (md.type === H5T_INTEGER) return `${md.signed ? 'int' : 'uint'}${md.size * 8}`;
  if (md.type === H5T_FLOAT) return `float${md.size * 8}`;
  if (md.type === H5T_STRING) return md.vlen ? 'variable-length string' : `fixed-length string (${md.size} bytes)`;
  return `HDF5 type class ${md.type}`;
}

function isType(md, t) {
  if (t === 'u32' || t === 'u64') return md.type === H5T_INTEGER && !md.signed && md.size === ELEM[t];
  return md.type === H5T_FLOAT && md.size === ELEM[t];
}

const TYPE_NAMES = { u32: 'uint32', u64: 'uint64', f32: 'float32', f64: 'float64' };

/** Normalises a group path: 'mat', '/mat/', 'a//counts' -> '/mat', '/a/counts'. */
export function normalizeGroup(group) {
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

function malloc(M, bytes, what) {
  const ptr = M._malloc(Math.max(1, bytes));
  if (!ptr) throw new BpcellsError(`${what}: cannot allocate ${bytes} bytes in the HDF5 heap`, { file: what });
  return ptr;
}

/** Operations on one HDF5 file (through an Hdf5Handle); shared by open() and list(). */
export class Hdf5Reader {
  constructor(handle) {
    this.handle = handle;
    this.size = handle.lazy.size;
    this._meta = new Map();
  }

  get name() {
    return this.handle.name;
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

  /** The string attribute `name` of the object at `path` (must be a string, scalar or one value). */
  stringAttribute(path, name) {
    const label = `${path === '/' ? '' : path}@${name}`;
    return this.handle.run(label, (M, fid) => {
      if (!M.get_attribute_names(fid, path).includes(name)) {
        throw new BpcellsError(`${label}: attribute missing (${path} is not a BPCells matrix group: it has no ${name} attribute)`, {
          file: label,
        });
      }
      const md = M.get_attribute_metadata(fid, path, name);
      if (md.type !== H5T_STRING) {
        throw new BpcellsError(`${label}: is ${describeType(md)}, expected a string`, { file: label });
      }
      const n = md.total_size;
      if (!(md.shape?.length === 0 || (md.shape?.length === 1 && n === 1))) {
        throw new BpcellsError(`${label}: holds ${n} values (shape [${md.shape}]), expected one string`, { file: label });
      }
      const bytes = md.size * Math.max(1, n);
      if (bytes > 1 << 20) throw new BpcellsError(`${label}: ${bytes} bytes, too large for a version string`, { file: label });
      const ptr = malloc(M, bytes, label);
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
          throw new BpcellsError(`${path}: is not a dataset`, { file: path });
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

  /** Elements [i0, i1) of a 1-D numeric dataset as little-endian bytes. */
  readElements(path, info, i0, i1, runOptions) {
    const n = i1 - i0;
    const bytes = n * info.size;
    if (bytes > this._limit(info)) {
      throw new BpcellsError(`${path}: reading ${n} values (${bytes} bytes) would exceed what a ${this.size}-byte file can hold`, {
        file: path,
      });
    }
    if (n === 0) return Promise.resolve(new Uint8Array(0));
    return this.handle.run(path, (M, fid) => {
      const ptr = malloc(M, bytes, path);
      try {
        const status = M.get_dataset_data(fid, path, [BigInt(n)], [BigInt(i0)], [1n], BigInt(ptr));
        if (status < 0) throw new Error(`H5Dread failed for values [${i0}, ${i1})`);
        return M.HEAPU8.slice(ptr, ptr + bytes);
      } finally {
        M._free(ptr);
      }
    }, { ...runOptions, bytes });
  }

  /** Every string of a 1-D string dataset. */
  readStrings(path, info) {
    const n = info.total_size;
    const bytes = n * info.size;
    // A variable-length string takes at least 16 bytes of the file (its global-heap ID)
    // unless the dataset is compressed.
    if (bytes > this._limit(info) || (info.vlen && info.filters.length === 0 && n * 16 > this.size)) {
      throw new BpcellsError(`${path}: claims ${n} strings, more than a ${this.size}-byte file can hold`, { file: path });
    }
    if (n === 0) return Promise.resolve([]);
    return this.handle.run(path, (M, fid) => {
      const ptr = malloc(M, bytes, path);
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
    }, { bytes: bytes + this.size }); // the pointers, and the strings: at most the file's bytes
  }
}

/**
 * The matrix group `group` of an HDF5 file as a BPCells directory source:
 * size(name), read(name, start, end), readAll(name), readLines(name), stats, locate(name).
 */
export class Hdf5GroupSource {
  constructor(reader, group, stats) {
    this.reader = reader;
    this.group = group;
    this.kind = 'hdf5';
    this.stats = stats;
    this._text = new Map();
    this._arrays = new Map();
    this._version = null;
  }

  /** The dataset path (or attribute) a virtual file name stands for. */
  locate(name) {
    if (name === 'version') return `${this.group}@version`;
    return `${this.group === '/' ? '' : this.group}/${name}`;
  }

  _unknown(name) {
    return new BpcellsError(`${name}: not part of a BPCells matrix group`, { file: name });
  }

  // The group's version string (parsed loosely here; matrix.js validates it).
  async _versionInfo() {
    this._version ??= this.reader.stringAttribute(this.group, 'version').then((text) => {
      if (/[\r\n]/.test(text)) {
        throw new BpcellsError(`${this.locate('version')}: version string holds a line break: ${JSON.stringify(text)}`, {
          file: this.locate('version'),
        });
      }
      const m = /^(packed|unpacked)-(uint|float|double)-matrix-v(\d+)$/.exec(text);
      return { text, format: m ? Number(m[3]) : 2, dtype: m ? { uint: 'u32', float: 'f32', double: 'f64' }[m[2]] : null };
    });
    return this._version;
  }

  async _expectedType(name) {
    if (name === 'idxptr') return (await this._versionInfo()).format === 1 ? 'u32' : 'u64';
    if (name === 'val') return (await this._versionInfo()).dtype;
    if (name.endsWith('_idx_offsets')) return 'u64';
    return 'u32';
  }

  // A numeric dataset checked for existence, rank and type: {path, type, count, info}.
  _array(name) {
    if (!this._arrays.has(name)) {
      const p = (async () => {
        const path = this.locate(name);
        const info = await this.reader.datasetInfo(path);
        if (info === null) {
          throw new BpcellsError(`${path}: dataset missing from the matrix group ${this.group} (in ${this.reader.name})`, { file: path });
        }
        const type = await this._expectedType(name);
        if (info.shape === null || info.shape.length !== 1) {
          const what = info.shape === null ? 'an empty (null) dataspace' : info.shape.length === 0 ? 'a scalar' : `rank ${info.shape.length} (shape [${info.shape}])`;
          throw new BpcellsError(`${path}: is ${what}, expected a 1-D array`, { file: path });
        }
        if (type !== null && !isType(info, type)) {
          throw new BpcellsError(`${path}: is ${describeType(info)}, expected ${TYPE_NAMES[type]}`, { file: path });
        }
        const actual = type ?? (info.type === H5T_FLOAT ? (info.size === 4 ? 'f32' : 'f64') : info.size === 8 ? 'u64' : 'u32');
        return { path, type: actual, count: info.shape[0], info };
      })();
      this._arrays.set(name, p);
      p.catch(() => this._arrays.delete(name));
    }
    return this._arrays.get(name);
  }

  /** The strings of a text name: version (one), storage_order and names (a 1-D string dataset). */
  async readLines(name) {
    if (!TEXT.has(name)) throw this._unknown(name);
    if (name === 'version') return [(await this._versionInfo()).text];
    if (!this._text.has(name)) {
      const p = (async () => {
        const path = this.locate(name);
        const info = await this.reader.datasetInfo(path);
        if (info === null) {
          throw new BpcellsError(`${path}: dataset missing from the matrix group ${this.group} (in ${this.reader.name})`, { file: path });
        }
        if (info.type !== H5T_STRING) throw new BpcellsError(`${path}: is ${describeType(info)}, expected strings`, { file: path });
        if (info.shape === null || info.shape.length !== 1) {
          throw new BpcellsError(`${path}: is ${info.shape === null ? 'an empty (null) dataspace' : `rank ${info.shape.length}`}, expected a 1-D array of strings`, {
            file: path,
          });
        }
        return this.reader.readStrings(path, info);
      })();
      this._text.set(name, p);
      p.catch(() => this._text.delete(name));
    }
    return this._text.get(name);
  }

  async _textBytes(name) {
    const lines = await this.readLines(name);
    const bad = lines.findIndex((l) => /[\r\n]/.test(l));
    if (bad >= 0 && name !== 'row_names' && name !== 'col_names') {
      throw new BpcellsError(`${this.locate(name)}: value ${bad} holds a line break`, { file: this.locate(name) });
    }
    return new TextEncoder().encode(lines.map((l) => `${l}\n`).join(''));
  }

  async size(name) {
    if (TEXT.has(name)) return (await this._textBytes(name)).length;
    if (!NUMERIC.has(name)) throw this._unknown(name);
    const a = await this._array(name);
    return HEADER + a.count * ELEM[a.type];
  }

  // Values [i0, i1) of a numeric dataset; a small dataset (idxptr of a few thousand columns,
  // shape, *_idx_offsets) is read whole once, which saves a request per later read.
  _values(a, i0, i1) {
    const bytes = a.count * ELEM[a.type];
    if (bytes > SMALL_WHOLE) return this.reader.readElements(a.path, a.info, i0, i1);
    a.whole ??= this.reader.readElements(a.path, a.info, 0, a.count);
    a.whole.catch(() => {
      a.whole = undefined;
    });
    return a.whole.then((all) => all.subarray(i0 * ELEM[a.type], i1 * ELEM[a.type]));
  }

  /**
   * Reads the first value of each named dataset (those not held whole): HDF5 then has the
   * dataset's chunk index root (and first leaf) in the cache, and a later read of any range
   * costs one or two requests fewer. Over HTTP this is a few kilobytes per dataset.
   */
  async warm(names) {
    await Promise.all(
      names.map(async (name) => {
        const a = await this._array(name);
        if (a.count > 0 && a.count * ELEM[a.type] > SMALL_WHOLE) await this.reader.readElements(a.path, a.info, 0, 1, { readAhead: false });
      }),
    );
  }

  async read(name, start, end) {
    if (TEXT.has(name)) {
      const all = await this._textBytes(name);
      if (end > all.length) throw new BpcellsError(`${this.locate(name)}: needs bytes [${start}, ${end}) of ${all.length}`, { file: this.locate(name) });
      return all.subarray(start, end);
    }
    if (!NUMERIC.has(name)) throw this._unknown(name);
    const a = await this._array(name);
    const elem = ELEM[a.type];
    const total = HEADER + a.count * elem;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
      throw new RangeError(`${name}: invalid byte range [${start}, ${end})`);
    }
    if (end > total) {
      const want = Math.ceil((end - HEADER) / elem);
      throw new BpcellsError(`${a.path}: needs values [${Math.max(0, Math.floor((start - HEADER) / elem))}, ${want}) but the dataset holds only ${a.count} (truncated?)`, {
        file: a.path,
      });
    }
    const out = new Uint8Array(end - start);
    const header = new TextEncoder().encode(MAGIC[a.type]);
    if (start < HEADER) out.set(header.subarray(start, Math.min(HEADER, end)), 0);
    if (end > HEADER) {
      const b0 = Math.max(start, HEADER) - HEADER;
      const b1 = end - HEADER;
      const i0 = Math.floor(b0 / elem);
      const i1 = Math.ceil(b1 / elem);
      const bytes = await this._values(a, i0, i1);
      out.set(bytes.subarray(b0 - i0 * elem, b1 - i0 * elem), Math.max(start, HEADER) - start);
    }
    return out;
  }

  async readAll(name) {
    if (TEXT.has(name)) return this._textBytes(name);
    return this.read(name, 0, await this.size(name));
  }

  toString() {
    return `${this.reader.name}:${this.group}`;
  }
}
