// The Matrix API: what a matrix is (inspect, names) and its reads. read(a, b) fetches the idxptr
// blocks it needs (cached, idxptr.js) and one byte range of each of index_* / val_* holding entries
// idxptr[a] .. idxptr[b] (whole 128-value chunks for packed streams, packed-stream.js), then
// decodes them in WebAssembly (chunk-decoder.js) into fresh arrays, the caller's, or wasm memory
// (slice-output.js). open-matrix.js makes a Matrix from a source of named array files.
import { outputBytesLimit } from '../bytes.js';
import { deprecated } from '../deprecate.js';
import { BpcellsError, CODES } from '../errors.js';
import { getModule } from '../wasm/load.js';
import { copyPart, labelOf, textLines } from './array-file.js';
import { settled } from './as-bpcells-error.js';
import { matrixBlocks, readByAxis } from './by-axis.js';
import { decodeRun } from './chunk-decoder.js';
import { checkInto, jsOutput, valueArrayType, viewOutput } from './slice-output.js';

// toDense's default limit: 2^24 values of the matrix dtype (what maxCells = 2^24 allowed).
const DENSE_CELLS = 1 << 24;

// Per-call options: unknown names are a TypeError (a typo must not be ignored silently).
function checkOptions(what, options, names) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw new TypeError(`${what}: options must be an object, got ${typeof options}`);
  for (const key of Object.keys(options)) {
    if (!names.includes(key)) throw new TypeError(`${what}: unknown option ${JSON.stringify(key)} (one of ${names.join(', ')})`);
  }
  if (options.signal !== undefined && typeof options.signal?.aborted !== 'boolean') {
    throw new TypeError(`${what}: options.signal must be an AbortSignal`);
  }
  return options;
}

function checkMajorRange(what, start, end, major) {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end > major) {
    throw new RangeError(`bpcells: ${what}(${start}, ${end}): range must satisfy 0 <= start <= end <= ${major}`);
  }
}

// The promise, or an ERR_ABORTED rejection as soon as `signal` fires. Reads already under way
// finish in the background (what they fetched stays cached); their result is not handed out.
function abortable(promise, signal, what) {
  if (!signal) return promise;
  const aborted = () => new BpcellsError(`${what} aborted`, { code: CODES.ABORTED, cause: signal.reason });
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(aborted());
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** A BPCells matrix opened for lazy reading (a directory or an HDF5 group). Create with bpcells.open(). */
export class Matrix {
  constructor() {
    throw new TypeError('use await bpcells.open(source) to open a matrix');
  }

  /** Number of entries along the storage (major) axis: columns for 'col', rows for 'row'. */
  get major() {
    return this.storageOrder === 'col' ? this.shape[1] : this.shape[0];
  }

  /** Size of the other axis (the range of index values). */
  get minor() {
    return this.storageOrder === 'col' ? this.shape[0] : this.shape[1];
  }

  /** Requests and bytes fetched so far through this matrix's source (live object). */
  get stats() {
    return this.source.stats;
  }

  /** What the matrix is, without reading any entries (plain data, JSON-safe). */
  inspect() {
    return {
      version: this.version,
      format: this.format,
      packed: this.packed,
      dtype: this.dtype,
      shape: [...this.shape],
      storageOrder: this.storageOrder,
      nnz: this.nnz,
    };
  }

  /**
   * storageOrder once the file's storage_order string has been checked against it. Over HTTP in
   * Node open may take the order from idxptr's length and leave the string to the first read
   * (open-matrix.js); this fetches it now. Resolves at once where open checked it.
   */
  async checkedStorageOrder() {
    await settled(Promise.resolve(this._orderCheck?.()), this.source);
    return this.storageOrder;
  }

  /** Row names ([] when the matrix has none). options: {signal}. */
  async rowNames(options) {
    const { signal } = checkOptions('rowNames', options, ['signal']);
    return settled(abortable(this._names('row_names', this.shape[0], 'rows'), signal, 'rowNames()'), this.source);
  }

  /** Column names ([] when the matrix has none). options: {signal}. */
  async colNames(options) {
    const { signal } = checkOptions('colNames', options, ['signal']);
    return settled(abortable(this._names('col_names', this.shape[1], 'columns'), signal, 'colNames()'), this.source);
  }

  async _names(file, n, what) {
    this._nameCache ??= new Map();
    if (!this._nameCache.has(file)) {
      // HDF5 sources hand names over as strings (a name may then hold a line break).
      const read = this.source.readLines ? this.source.readLines(file) : this.source.readAll(file).then(textLines);
      const p = read.then((lines) => {
        if (lines.length !== 0 && lines.length !== n) {
          const label = labelOf(this.source, file);
          throw new BpcellsError(`${label}: ${lines.length} names for ${n} ${what}`, { file: label });
        }
        return lines;
      });
      this._nameCache.set(file, p);
      p.catch(() => this._nameCache.delete(file));
    }
    return [...(await this._nameCache.get(file))];
  }

  /**
   * Entries of major-axis positions [start, end) (columns for 'col', rows for 'row'):
   * {idxptr: Float64Array (end-start+1, from 0), index: Uint32Array, val: typed array}.
   * options.into {idxptr?, index?, val?}: the caller's arrays receive those parts (at their start;
   * the result holds the filled subarrays); the others are fresh.
   */
  async read(start = 0, end = this.major, options) {
    checkMajorRange('read', start, end, this.major);
    const { signal, into } = checkOptions('read', options, ['signal', 'into']);
    const what = `read(${start}, ${end})`;
    checkInto(what, into, this.dtype);
    const output = (nnz, entries) => jsOutput(what, into, this.dtype, nnz, entries);
    return settled(abortable(this._read(start, end, output, signal), signal, what), this.source);
  }

  /**
   * As read(), but index and val stay in wasm memory (decoded there, no copy): a view
   * {idxptr, index, val, dtype, nnz, byteLength, released, release()} (also close() and
   * Symbol.dispose). index and val are valid until release(); re-read them after other numdecode
   * calls (wasm memory growth detaches typed arrays taken earlier). A view never released leaks.
   */
  async readView(start = 0, end = this.major, options) {
    checkMajorRange('readView', start, end, this.major);
    const { signal } = checkOptions('readView', options, ['signal']);
    const what = `readView(${start}, ${end})`;
    const pending = this._read(start, end, (nnz, entries) => viewOutput(what, this.dtype, nnz, entries), signal);
    // A view that arrives after the caller gave up is nobody's: free it.
    if (signal) pending.then((view) => signal.aborted && view.release(), () => {});
    return settled(abortable(pending, signal, what), this.source);
  }

  // Fetches everything first, then decodes synchronously into output(nnz, entries) (slice-output.js).
  // `again`: this is the read made once more after HDF5's runtime was replaced under it.
  async _read(start, end, output, signal, again = false) {
    const ptr = await this._idxptr.get(start, end + 1);
    const p0 = ptr[0];
    const p1 = ptr[ptr.length - 1];
    // Blocks of idxptr are checked one by one; an entry above the last one (nnz) means the
    // array decreases somewhere between them.
    if (p1 > this.nnz) {
      const label = this._idxptr.file.label;
      throw new BpcellsError(`${label}: not monotone, entry ${end} (${p1}) is greater than the last entry (${this.nnz})`, { file: label });
    }
    const [indexPart, valPart] = await Promise.all([
      this._indexStream ? this._indexStream.fetch(p0, p1) : this._indexFile.part(p0, p1),
      this._valStream ? this._valStream.fetch(p0, p1) : this._valFile.part(p0, p1),
      this._orderCheck?.(), // storage_order, when open left it to the first read (open-matrix.js)
    ]);
    // The caller has its rejection already; write nothing (its `into` arrays may be in use again).
    if (signal?.aborted) throw new BpcellsError('read aborted', { code: CODES.ABORTED, cause: signal.reason });
    const out = output(p1 - p0, ptr.length);
    try {
      // minor > 0 when nnz > 0 (checked at open)
      if (this._indexStream) decodeRun(indexPart, this._indexStream.place(indexPart, this._residentBytes), out.index, this.minor);
      else this._copyIndex(indexPart, out.index, p0, p1 - p0);
      if (this._valStream) decodeRun(valPart, this._valStream.place(valPart, this._residentBytes), out.val, 0);
      else copyPart(valPart, p1 - p0, this._valFile.elem, out.val);
    } catch (err) {
      out.fail();
      // A local HDF5 file's values are read during the decode (hdf5-group-source.js syncReader); a
      // trap there leaves HDF5's runtime to be replaced, which only an asynchronous read can do.
      if (err?.runtimeReplaced && !again) return this._read(start, end, output, signal, true);
      throw err;
    }
    for (let i = 0; i < ptr.length; i++) out.idxptr[i] = ptr[i] - p0;
    return out.finish();
  }

  // An unpacked index: copied once to its target, then every value checked against minor.
  _copyIndex(part, target, p0, count) {
    copyPart(part, count, 4, target);
    const index = target.array ?? new Uint32Array(getModule('bpcells').HEAPU8.buffer, target.ptr, count);
    const minor = this.minor;
    for (let i = 0; i < index.length; i++) {
      if (index[i] >= minor) {
        const label = this._indexFile.label;
        throw new BpcellsError(`${label}: value ${index[i]} at position ${p0 + i} is out of range (must be < ${minor})`, { file: label });
      }
    }
  }

  /**
   * Entries of columns [start, end), CSC {idxptr, index (rows), val}, whatever the storage order:
   * read() for a col-major matrix, a full scan of a row-major one (by-axis.js).
   * options: {signal, onProgress, into}.
   */
  async readColumns(start = 0, end = this.shape[1], options) {
    return settled(readByAxis(this, 'col', start, end, options, false), this.source);
  }

  /** Entries of rows [start, end), CSR {idxptr, index (columns), val}: as readColumns. */
  async readRows(start = 0, end = this.shape[0], options) {
    return settled(readByAxis(this, 'row', start, end, options, false), this.source);
  }

  /** As readColumns(), as a view in wasm memory (readView's). options: {signal, onProgress}. */
  async readColumnsView(start = 0, end = this.shape[1], options) {
    return settled(readByAxis(this, 'col', start, end, options, true), this.source);
  }

  /** As readRows(), as a view in wasm memory (readView's). options: {signal, onProgress}. */
  async readRowsView(start = 0, end = this.shape[0], options) {
    return settled(readByAxis(this, 'row', start, end, options, true), this.source);
  }

  /** `for await (const {start, end, idxptr, index, val} of m.blocks({size}))`: by-axis.js. */
  blocks(options) {
    return matrixBlocks(this, options);
  }

  /**
   * A dense copy of storage-axis positions [start, end): {data, shape, stride}, shape
   * [nrow, end-start] for 'col' order, [end-start, ncol] for 'row' order, data in C (row-major)
   * order in the matrix dtype. options.maxOutputBytes caps data's size (default 2^24 values).
   */
  async toDense(start = 0, end = this.major, options) {
    checkMajorRange('toDense', start, end, this.major);
    const checked = checkOptions('toDense', options, ['maxOutputBytes', 'maxCells', 'signal']);
    const { maxCells, signal } = checked;
    let maxOutputBytes = checked.maxOutputBytes;
    const Type = valueArrayType(this.dtype);
    if (maxCells !== undefined) {
      deprecated('bpcells toDense option maxCells', 'maxOutputBytes');
      maxOutputBytes ??= maxCells * Type.BYTES_PER_ELEMENT;
    }
    maxOutputBytes ??= DENSE_CELLS * Type.BYTES_PER_ELEMENT;
    outputBytesLimit('bpcells toDense', maxOutputBytes);
    const k = end - start;
    const cells = k * this.minor;
    const bytes = cells * Type.BYTES_PER_ELEMENT;
    if (bytes > maxOutputBytes) {
      throw new BpcellsError(
        `toDense(${start}, ${end}): ${cells} values (${bytes} bytes) exceed maxOutputBytes=${maxOutputBytes}; read() a smaller range`,
        { code: CODES.OUTPUT_LIMIT },
      );
    }
    const { idxptr, index, val } = await this.read(start, end, { signal });
    const data = new Type(cells);
    const col = this.storageOrder === 'col';
    for (let m = 0; m < k; m++) {
      for (let p = idxptr[m]; p < idxptr[m + 1]; p++) {
        const at = col ? index[p] * k + m : m * this.minor + index[p];
        data[at] += val[p];
      }
    }
    const shape = col ? [this.shape[0], k] : [k, this.shape[1]];
    return { data, shape, stride: [shape[1], 1] };
  }

  /** Releases open files and cached bytes (a directory matrix reopens its files if read again). */
  close() {
    this._indexStream?.release();
    this._valStream?.release();
    this.source.close?.();
  }

  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    this.close();
  }

  /** Sizes in bytes of the directory's files (one size query per file). */
  async fileSizes() {
    const names = ['version', 'storage_order', 'shape', 'row_names', 'col_names', 'idxptr', ...this._arrayNames];
    const sizes = await settled(Promise.all(names.map((n) => this.source.size(n))), this.source);
    return Object.fromEntries(names.map((n, i) => [n, sizes[i]]));
  }
}
