// A BPCells matrix group inside an HDF5 file, presented to the matrix reader (open-matrix.js) as
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
import { H5T_FLOAT, H5T_INTEGER, H5T_STRING, describeType } from '../hdf5/reader.js';

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
// Numeric datasets up to this size are read whole on first use.
const SMALL_WHOLE = 16 * 1024;
// A seek table and the data array its entries point into: a read of entries [i0, i1) of the
// table is followed by a read of the data near the same fraction of the array, so the table's
// read also fetches the data's chunk B-tree nodes there (a guess: nodes only, never data). The
// margin, in data chunks either side, covers how far the guess strays (3 chunks at most in the
// 20000 x 2000 corpus file; a leaf node indexes 57 chunks in files BPCells writes).
const SEEK_DATA = { index_idx: 'index_data', index_starts: 'index_data', val_idx: 'val_data' };
const NEAR_MARGIN_CHUNKS = 8;
const TYPE_NAMES = { u32: 'uint32', u64: 'uint64', f32: 'float32', f64: 'float64' };

function isType(md, t) {
  if (t === 'u32' || t === 'u64') return md.type === H5T_INTEGER && !md.signed && md.size === ELEM[t];
  return md.type === H5T_FLOAT && md.size === ELEM[t];
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
    this._checked = new Map(); // name -> what _array(name) resolved with (for syncReader)
    this._warm = new Map();
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
      if (text === null) {
        const label = this.locate('version');
        throw new BpcellsError(`${label}: attribute missing (${this.group} is not a BPCells matrix group: it has no version attribute)`, {
          file: label,
        });
      }
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
        const a = { path, type: actual, count: info.shape[0], info };
        this._checked.set(name, a);
        return a;
      })();
      this._arrays.set(name, p);
      p.catch(() => this._arrays.delete(name));
    }
    return this._arrays.get(name);
  }

  // A string dataset checked for existence, type and rank: {path, info}.
  async _stringDataset(name) {
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
    return { path, info };
  }

  /**
   * Over async sources: reads a string dataset up to its strings' global heap collection (see
   * Hdf5Reader.warmStrings), so that reading it later costs one round trip. Errors are left to that read.
   */
  async warmText(name) {
    if (this.reader.synchronous || this._text.has(name)) return;
    const { path, info } = await this._stringDataset(name);
    await this.reader.warmStrings(path, info);
  }

  /** The strings of a text name: version (one), storage_order and names (a 1-D string dataset). */
  async readLines(name) {
    if (!TEXT.has(name)) throw this._unknown(name);
    if (name === 'version') return [(await this._versionInfo()).text];
    if (!this._text.has(name)) {
      const p = (async () => {
        const { path, info } = await this._stringDataset(name);
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
  _values(a, i0, i1, near) {
    const bytes = a.count * ELEM[a.type];
    if (bytes > SMALL_WHOLE) return this.reader.readElements(a.path, a.info, i0, i1, { near });
    a.whole ??= this.reader.readElements(a.path, a.info, 0, a.count);
    a.whole.catch(() => {
      a.whole = undefined;
    });
    return a.whole.then((all) => all.subarray(i0 * ELEM[a.type], i1 * ELEM[a.type]));
  }

  /**
   * Makes HDF5 find (not fetch) the first value of each named large dataset: its object header and
   * chunk B-tree root and leaf are cached and known to the reads' planner (js/hdf5/chunk-index.js),
   * which saves later reads one or two round trips. Small datasets are read whole. Once per name.
   */
  async warm(names) {
    await Promise.all(
      names.map((name) => {
        if (!this._warm.has(name)) {
          const p = (async () => {
            const a = await this._array(name);
            if (a.count === 0) return;
            if (a.count * ELEM[a.type] > SMALL_WHOLE) await this.reader.readElements(a.path, a.info, 0, 1, { readAhead: false, warm: true });
            else await this._values(a, 0, a.count);
          })();
          this._warm.set(name, p);
          p.catch(() => this._warm.delete(name));
        }
        return this._warm.get(name);
      }),
    );
  }

  /**
   * Reads the seek tables (index_starts only with `withStarts`) whole now, when together they fit
   * `budget` bytes (the matrix reader then holds them: openMatrix's prefetchBytes), beside open's
   * first reads rather than after them; their reads also fetch every B-tree leaf of the data
   * arrays, so that a column after open needs only its data chunks.
   */
  async preload(budget, withStarts = true) {
    const names = Object.keys(SEEK_DATA).filter((n) => withStarts || n !== 'index_starts');
    const arrays = (await Promise.all(names.map((n) => this._array(n).catch(() => null)))).map((a, i) => a && { a, name: names[i] });
    const present = arrays.filter(Boolean);
    // As openMatrix counts them (PackedStream.tableBytes): each table with its 8-byte header.
    const bytes = present.reduce((n, { a }) => n + HEADER + a.count * ELEM[a.type], 0);
    if (present.length === 0 || bytes > budget) return;
    const jobs = present.map(async ({ a, name }) => this._values(a, 0, a.count, await this._near(name, a, 0, a.count)));
    // index_starts read by range beside each column's data: its B-tree leaves now (one per ~57
    // chunks), so that those reads find where its chunks lie.
    if (!withStarts) jobs.push(this._warmNodes('index_starts'));
    await Promise.all(jobs);
  }

  // Every chunk B-tree node of a large dataset fetched (nodes only, no data), if it is present.
  async _warmNodes(name) {
    const a = await this._array(name).catch(() => null);
    const chunks = a?.info.chunks?.[0] ?? 0;
    if (!a || !(chunks > 0) || a.count * ELEM[a.type] <= SMALL_WHOLE) return;
    const near = { path: a.path, chunks, from: 0, to: a.count };
    await this.reader.readElements(a.path, a.info, 0, 1, { readAhead: false, warm: true, near });
  }

  // Where a read of entries [i0, i1) of seek table `a` (`name`) will likely lead: {path, chunks,
  // from, to} of the data array (see SEEK_DATA), or undefined.
  async _near(name, a, i0, i1) {
    const dataName = SEEK_DATA[name];
    if (!dataName || this.reader.synchronous || a.count === 0) return undefined;
    const d = await this._array(dataName).catch(() => null);
    const chunks = d?.info.chunks?.[0] ?? 0;
    if (!d || !(chunks > 0) || d.count === 0) return undefined;
    const margin = NEAR_MARGIN_CHUNKS * chunks;
    const from = Math.max(0, Math.floor((i0 * d.count) / a.count) - margin);
    const to = Math.min(d.count, Math.ceil((i1 * d.count) / a.count) + margin);
    return to > from ? { path: d.path, chunks, from, to } : undefined;
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
    let values = null; // the range's values, as HDF5 returned them
    if (end > HEADER) {
      const b0 = Math.max(start, HEADER) - HEADER;
      const b1 = end - HEADER;
      const i0 = Math.floor(b0 / elem);
      const i1 = Math.ceil(b1 / elem);
      const bytes = await this._values(a, i0, i1, await this._near(name, a, i0, i1));
      values = bytes.subarray(b0 - i0 * elem, b1 - i0 * elem);
      // Values only, read fresh for this call (not the cached whole of a small dataset): handed out
      // as they came, without a second copy of the range.
      if (start >= HEADER && a.count * elem > SMALL_WHOLE) return values;
    }
    const out = new Uint8Array(end - start);
    const header = new TextEncoder().encode(MAGIC[a.type]);
    if (start < HEADER) out.set(header.subarray(start, Math.min(HEADER, end)), 0);
    if (values) out.set(values, Math.max(start, HEADER) - start);
    return out;
  }

  /**
   * Where the file reads synchronously (a local path, a buffer): for a large numeric dataset already
   * checked (by size, probe), read(start, end, target) writing the values at byte offsets
   * [start, end) of its array file (past the header, whole values) straight into `target` (wasm
   * memory of the matrix reader: no JS copy; ArrayFile.part). Otherwise null: read() then.
   * (A trap in HDF5 between this call and the reader's use, or during it, is an Hdf5Error with
   * `runtimeReplaced`: the matrix makes its read once more, through read(), on a fresh runtime.)
   */
  syncReader(name) {
    const a = this._checked.get(name);
    // (a runtime broken by a trap elsewhere: read() moves the file to a fresh one first)
    if (!this.reader.handle.canRunNow || !a || a.count * ELEM[a.type] <= SMALL_WHOLE) return null;
    const elem = ELEM[a.type];
    return (start, end, target = new Uint8Array(end - start)) => {
      if (start < HEADER || (start - HEADER) % elem !== 0 || (end - HEADER) % elem !== 0 || end < start || end > HEADER + a.count * elem) {
        throw new RangeError(`${a.path}: [${start}, ${end}) is not a range of whole values of the array file`);
      }
      return this.reader.readElementsInto(a.path, a.info, (start - HEADER) / elem, (end - HEADER) / elem, target);
    };
  }

  async readAll(name) {
    if (TEXT.has(name)) return this._textBytes(name);
    return this.read(name, 0, await this.size(name));
  }

  toString() {
    return `${this.reader.name}:${this.group}`;
  }
}
