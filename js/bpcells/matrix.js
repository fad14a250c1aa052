// Lazy reader for BPCells matrix directories (local, HTTP or a custom source).
//
// open() reads version, storage_order, shape, the first and last 512-entry blocks of idxptr,
// the 8-byte headers of the data files and, for packed matrices, the *_idx / index_starts
// seek tables when together they fit `prefetchBytes` (else they are read by range on demand).
// read(a, b) then fetches the idxptr blocks it needs (cached) and one byte range of each of
// index_* / val_* holding entries idxptr[a] .. idxptr[b] (whole 128-value chunks for packed
// streams), and decodes them in WebAssembly. Everything is checked: headers, lengths, monotone idxptr,
// indices inside the matrix; BPCells itself accepts several of these corruptions silently.
//
// idxptr values are JS numbers (Float64Array): exact up to 2^53, and an idxptr beyond that is
// reported as an error rather than rounded.
import { ensureFormat, getModule, textAt, withInputs } from '../wasm.js';
import { CODES } from '../errors.js';
import { BpcellsError, toSource } from './sources.js';
import { decodeRun, inputBuffer } from './chunk-decoder.js';
import { checkInto, jsOutput, viewOutput } from './slice-output.js';

const HEADER = 8;
const CHUNK = 128;
const TWO32 = 2 ** 32;
const ELEM_BYTES = { u32: 4, u64: 8, f32: 4, f64: 8 };
const VARIANT = { plain: 0, m1: 1, d1: 2, d1z: 3 };
const DEFAULT_PREFETCH = 4 * 1024 * 1024;
const DEFAULT_RESIDENT = 16 * 1024 * 1024; // the I/O layer's default cacheBytes

// Wasm errors arrive as plain Errors: give them our class and prefix.
function wasm(fn) {
  try {
    return fn(getModule('bpcells'));
  } catch (err) {
    if (err instanceof BpcellsError) throw err;
    throw new BpcellsError(err?.message ?? String(err), { cause: err });
  }
}

const ELEM_TYPE_CODE = { u32: 0, u64: 1, f32: 2, f64: 3 }; // numdecode_bpcells_check_header's codes
const utf8 = new TextEncoder();

function checkHeader(bytes, type, name) {
  wasm((mod) =>
    withInputs('bpcells', [bytes.subarray(0, HEADER), utf8.encode(name)], (p, l, namePtr, nameLen) =>
      mod._numdecode_bpcells_check_header(p, l, ELEM_TYPE_CODE[type] ?? -1, namePtr, nameLen),
    ),
  );
}

// u64 little-endian values -> numbers, refusing anything above 2^53.
function u64ToNumbers(bytes, name, firstIndex = 0, allowMax = false) {
  const n = bytes.length / 8;
  const out = new Float64Array(n);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < n; i++) {
    const lo = dv.getUint32(8 * i, true);
    const hi = dv.getUint32(8 * i + 4, true);
    if (hi >= 0x200000 && !(hi === 0x200000 && lo === 0)) {
      if (allowMax && hi === 0xffffffff && lo === 0xffffffff) {
        out[i] = Infinity;
        continue;
      }
      const big = (BigInt(hi) << 32n) | BigInt(lo);
      throw new BpcellsError(
        `${name}: entry ${firstIndex + i} is ${big}, above 2^53 (JS numbers cannot hold it exactly)`,
        { file: name },
      );
    }
    out[i] = hi * TWO32 + lo;
  }
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function u32ToNumbers(bytes) {
  const n = bytes.length / 4;
  // Aligned bytes on a little-endian host: one native conversion (the seek tables at open).
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) return new Float64Array(new Uint32Array(bytes.buffer, bytes.byteOffset, n));
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.getUint32(4 * i, true);
  return out;
}

function textLines(bytes) {
  const text = new TextDecoder('utf-8').decode(bytes);
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop(); // the '\n' after the last value
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

function singleLine(bytes, name) {
  const lines = textLines(bytes);
  if (lines.length !== 1) {
    throw new BpcellsError(`${name}: expected exactly one line, found ${lines.length} (${bytes.length} bytes)`, { file: name });
  }
  return lines[0];
}

// One numeric array file: either held whole, or known by header + size and read by range.
class ArrayFile {
  constructor(source, name, type) {
    this.source = source;
    this.name = name;
    this.type = type;
    this.elem = ELEM_BYTES[type];
    this.payload = null; // Uint8Array when held whole
    this.count = 0;
  }

  get whole() {
    return this.payload !== null;
  }

  _setSize(size) {
    const payloadBytes = size - HEADER;
    if (payloadBytes % this.elem !== 0) {
      throw new BpcellsError(
        `${this.name}: payload of ${payloadBytes} bytes is not a whole number of ${this.elem}-byte values (${payloadBytes % this.elem} stray bytes)`,
        { file: this.name },
      );
    }
    this.count = payloadBytes / this.elem;
    this.size = size;
  }

  async load() {
    const bytes = await this.source.readAll(this.name);
    checkHeader(bytes, this.type, this.name);
    this._setSize(bytes.length);
    this.payload = bytes.subarray(HEADER);
    return this;
  }

  // Header and size only (one small request over HTTP: the size comes with the range answer).
  async probe() {
    let header;
    try {
      header = await this.source.read(this.name, 0, HEADER);
    } catch (err) {
      if (err instanceof BpcellsError && /truncated/.test(err.message)) {
        const size = await this.source.size(this.name);
        throw new BpcellsError(`${this.name}: file is ${size} bytes, shorter than the 8-byte array header`, { file: this.name });
      }
      throw err;
    }
    checkHeader(header, this.type, this.name);
    this._setSize(await this.source.size(this.name));
    return this;
  }

  _checkEnd(i0, i1) {
    if (i1 > this.count) {
      throw new BpcellsError(
        `${this.name}: needs entries [${i0}, ${i1}) but the file holds only ${this.count} (truncated?)`,
        { file: this.name },
      );
    }
  }

  // Payload bytes of elements [i0, i1) (a view into the cache when held whole).
  async slice(i0, i1) {
    this._checkEnd(i0, i1);
    if (this.whole) return this.payload.subarray(i0 * this.elem, i1 * this.elem);
    return this.source.read(this.name, HEADER + i0 * this.elem, HEADER + i1 * this.elem);
  }

  // Elements [i0, i1) as a part for the decode step: {bytes} fetched now, or, where the file reads
  // synchronously (local files), {read(a, b, target)} that reads elements [i0 + a, i0 + b) into a
  // Uint8Array (wasm memory, a caller's array) when the decode step needs them: one copy, no JS
  // buffer in between.
  async part(i0, i1) {
    this._checkEnd(i0, i1);
    const read = this.whole ? null : this.source.syncReader?.(this.name);
    if (!read) return { bytes: await this.slice(i0, i1) };
    const at = (i) => HEADER + (i0 + i) * this.elem;
    return { read: (a, b, target) => read(at(a), at(b), target) };
  }
}

function checkMonotone(ptr, firstIndex, name = 'idxptr') {
  for (let i = 1; i < ptr.length; i++) {
    if (ptr[i] < ptr[i - 1]) {
      throw new BpcellsError(
        `${name}: not monotone, entry ${firstIndex + i} (${ptr[i]}) is less than entry ${firstIndex + i - 1} (${ptr[i - 1]})`,
        { file: name },
      );
    }
  }
}

// idxptr, read in blocks of IDXPTR_BLOCK entries that stay cached: a column read fetches the
// block holding it (one small range), neighbouring columns then cost nothing, and a matrix
// with millions of columns never loads its whole idxptr. Small files are one block.
const IDXPTR_BLOCK = 512;

class IdxptrReader {
  constructor(source, type) {
    this.file = new ArrayFile(source, 'idxptr', type);
    this.blocks = new Map(); // block number -> Promise<Float64Array>
  }

  _convert(bytes, first) {
    const ptr = this.file.type === 'u64' ? u64ToNumbers(bytes, 'idxptr', first) : u32ToNumbers(bytes);
    checkMonotone(ptr, first);
    return ptr;
  }

  // Header, size and the first block in one request (its length comes from `shape`).
  async open(expectedCount) {
    const f = this.file;
    const firstEntries = Math.max(1, Math.min(expectedCount, IDXPTR_BLOCK));
    const head = await f.source.read('idxptr', 0, HEADER + firstEntries * f.elem);
    checkHeader(head, f.type, 'idxptr');
    f._setSize(await f.source.size('idxptr'));
    if (f.count === 0) throw new BpcellsError('idxptr: empty, needs at least one entry', { file: 'idxptr' });
    const first = this._convert(head.subarray(HEADER), 0);
    if (first[0] !== 0) throw new BpcellsError(`idxptr: first entry is ${first[0]}, not 0`, { file: 'idxptr' });
    if (f.count <= IDXPTR_BLOCK && firstEntries >= f.count) {
      this.blocks.set(0, Promise.resolve(first.subarray(0, f.count)));
    } else if (firstEntries === Math.min(IDXPTR_BLOCK, f.count)) {
      this.blocks.set(0, Promise.resolve(first));
    }
  }

  _block(b) {
    if (!this.blocks.has(b)) {
      const i0 = b * IDXPTR_BLOCK;
      const i1 = Math.min(this.file.count, i0 + IDXPTR_BLOCK);
      const p = this.file.slice(i0, i1).then((bytes) => this._convert(bytes, i0));
      this.blocks.set(b, p);
      p.catch(() => this.blocks.delete(b));
    }
    return this.blocks.get(b);
  }

  // Entries [a, b) as numbers, checked to be non-decreasing; missing neighbouring blocks are
  // fetched as one range.
  async get(a, b) {
    const out = new Float64Array(b - a);
    if (b === a) return out;
    const b0 = Math.floor(a / IDXPTR_BLOCK);
    const b1 = Math.floor((b - 1) / IDXPTR_BLOCK);
    for (let k = b0; k <= b1; ) {
      if (this.blocks.has(k)) {
        k++;
        continue;
      }
      let e = k;
      while (e + 1 <= b1 && !this.blocks.has(e + 1)) e++;
      const i0 = k * IDXPTR_BLOCK;
      const i1 = Math.min(this.file.count, (e + 1) * IDXPTR_BLOCK);
      const run = this.file.slice(i0, i1).then((bytes) => this._convert(bytes, i0));
      for (let x = k; x <= e; x++) {
        const off = (x - k) * IDXPTR_BLOCK;
        const p = run.then((all) => all.subarray(off, Math.min(all.length, off + IDXPTR_BLOCK)));
        this.blocks.set(x, p);
        p.catch(() => this.blocks.delete(x));
      }
      k = e + 1;
    }
    for (let k = b0; k <= b1; k++) {
      const block = await this._block(k);
      const i0 = k * IDXPTR_BLOCK;
      const lo = Math.max(a, i0);
      const hi = Math.min(b, i0 + block.length);
      out.set(block.subarray(lo - i0, hi - i0), lo - a);
    }
    checkMonotone(out, a);
    return out;
  }
}

// A BP-128 stream (index: d1z with starts, val: m1) of `count` values.
class PackedStream {
  constructor(source, prefix, variant, format) {
    this.prefix = prefix;
    this.variant = variant;
    this.data = new ArrayFile(source, `${prefix}_data`, 'u32');
    this.idx = new ArrayFile(source, `${prefix}_idx`, 'u32');
    this.starts = variant === VARIANT.d1z || variant === VARIANT.d1 ? new ArrayFile(source, `${prefix}_starts`, 'u32') : null;
    this.offsetsFile = format >= 2 ? new ArrayFile(source, `${prefix}_idx_offsets`, 'u64') : null;
    this.offsets = [0, Infinity]; // v1: no file, everything in segment 0
    this.abs = null; // absolute word offsets (Uint32Array or Float64Array) when the idx table is held whole
    this.resident = null; // {w0, w1, input}: words [w0, w1) kept in wasm memory (a wasmInput)
  }

  async openSmall() {
    const jobs = [this.data.probe()];
    if (this.offsetsFile) jobs.push(this.offsetsFile.load());
    await Promise.all(jobs);
    if (this.offsetsFile) {
      const o = u64ToNumbers(this.offsetsFile.payload, this.offsetsFile.name);
      const name = this.offsetsFile.name;
      if (o.length < 2) throw new BpcellsError(`${name}: ${o.length} entries, need at least 2 (start and end)`, { file: name });
      if (o[0] !== 0) throw new BpcellsError(`${name}: first entry is ${o[0]}, not 0`, { file: name });
      for (let k = 1; k < o.length; k++) {
        if (o[k] < o[k - 1]) throw new BpcellsError(`${name}: entries decrease at position ${k}`, { file: name });
      }
      this.offsets = Array.from(o);
    }
  }

  tableBytes(nchunks) {
    return HEADER + 4 * (nchunks + 1) + (this.starts ? HEADER + 4 * nchunks : 0);
  }

  async openTables(nchunks, whole) {
    const files = [this.idx, this.starts].filter(Boolean);
    await Promise.all(files.map((f) => (whole ? f.load() : f.probe())));
    if (this.idx.count !== nchunks + 1) {
      throw new BpcellsError(
        `${this.idx.name}: ${this.idx.count} entries, expected ${nchunks + 1} for ${nchunks} chunks of 128 values`,
        { file: this.idx.name },
      );
    }
    if (this.starts && this.starts.count !== nchunks) {
      throw new BpcellsError(`${this.starts.name}: ${this.starts.count} entries, expected ${nchunks} (one per chunk)`, {
        file: this.starts.name,
      });
    }
    if (this.offsets[this.offsets.length - 1] < this.idx.count) {
      throw new BpcellsError(
        `${this.offsetsFile.name}: last entry ${this.offsets[this.offsets.length - 1]} does not cover the ${this.idx.count} entries of ${this.idx.name}`,
        { file: this.offsetsFile.name },
      );
    }
    if (whole) {
      this.abs = this._resolve(this.idx.payload, 0);
      if (this.abs[0] !== 0) throw new BpcellsError(`${this.idx.name}: first entry is ${this.abs[0]}, not 0`, { file: this.idx.name });
      checkMonotone(this.abs, 0, this.idx.name);
      const last = this.abs[this.abs.length - 1];
      if (last > this.data.count) {
        throw new BpcellsError(
          `${this.idx.name}: chunks end at word ${last} but ${this.data.name} holds only ${this.data.count} words (truncated?)`,
          { file: this.data.name },
        );
      }
      if (last !== this.data.count) {
        throw new BpcellsError(`${this.data.name}: ${this.data.count} words but ${this.idx.name} accounts for ${last} (trailing data)`, {
          file: this.data.name,
        });
      }
    }
  }

  // Absolute word offsets of idx entries first.. from their raw u32 bytes.
  // Entries of segment k (idx positions [offsets[k], offsets[k+1])) get k * 2^32 added; segment 0,
  // usually the only one, needs nothing.
  _resolve(bytes, first) {
    const o = this.offsets;
    // All in segment 0 (the usual case), aligned, little-endian host: the u32 values as they are.
    const n = bytes.length / 4;
    if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0 && (o.length < 3 || first + n <= o[1])) return new Uint32Array(bytes.buffer, bytes.byteOffset, n);
    const raw = u32ToNumbers(bytes);
    for (let k = 1; k + 1 < o.length; k++) {
      const lo = Math.max(o[k], first) - first;
      const hi = Math.min(o[k + 1], first + raw.length) - first;
      for (let i = lo; i < hi; i++) raw[i] += k * TWO32;
    }
    return raw;
  }

  // What chunk-decoder.js needs for values [p0, p1) of the stream: the chunks' word offsets,
  // starts and packed words, fetched and checked; nothing is decoded yet.
  async fetch(p0, p1) {
    if (p1 === p0) return null;
    const c0 = Math.floor(p0 / CHUNK);
    const c1 = Math.ceil(p1 / CHUNK);
    let abs;
    let startsBytes = new Uint8Array(0);
    if (this.abs) {
      abs = this.abs.subarray(c0, c1 + 1);
      if (this.starts) startsBytes = await this.starts.slice(c0, c1);
    } else {
      const [idxBytes, sb] = await Promise.all([this.idx.slice(c0, c1 + 1), this.starts ? this.starts.slice(c0, c1) : null]);
      abs = this._resolve(idxBytes, c0);
      if (c0 === 0 && abs[0] !== 0) throw new BpcellsError(`${this.idx.name}: first entry is ${abs[0]}, not 0`, { file: this.idx.name });
      checkMonotone(abs, c0, this.idx.name);
      if (sb) startsBytes = sb;
    }
    const w0 = abs[0];
    const w1 = abs[abs.length - 1];
    // Bound the fetch before making it: at most 32 bits per value.
    if (w1 - w0 > 4 * 32 * (c1 - c0)) {
      throw new BpcellsError(
        `${this.idx.name}: chunks ${c0}..${c1 - 1} span ${w1 - w0} words, more than 32 bits per value allows`,
        { file: this.idx.name },
      );
    }
    if (w1 > this.data.count) {
      throw new BpcellsError(
        `${this.data.name}: chunks ${c0}..${c1 - 1} need words [${w0}, ${w1}) but only ${this.data.count} words are present (truncated?)`,
        { file: this.data.name },
      );
    }
    const words = await this.data.part(w0, w1);
    return { variant: this.variant, name: this.prefix, firstChunk: c0, abs, starts: startsBytes, words, skip: p0 - c0 * CHUNK, count: p1 - p0 };
  }

  // For the decode step (synchronous, so no other read replaces the range meanwhile): the run's
  // words in wasm memory ({ptr}), from the range kept there when it holds them, else written there
  // once (a local file read straight in, fetched bytes copied) and kept for the next reads when
  // they fit `budget` bytes; a larger range is left to chunk-decoder.js's bounded blocks.
  place(run, budget) {
    if (run === null) return null;
    const w0 = run.abs[0];
    const w1 = run.abs[run.abs.length - 1];
    const r = this.resident;
    if (r && r.w0 <= w0 && w1 <= r.w1) return { ptr: r.input.bytes.byteOffset + 4 * (w0 - r.w0) };
    if (4 * (w1 - w0) > budget) return run.words;
    this.release(); // before allocating: its memory can serve the new range
    const input = inputBuffer(4 * (w1 - w0), this.data.name);
    try {
      if (run.words.bytes) input.bytes.set(run.words.bytes);
      else run.words.read(0, w1 - w0, input.bytes);
    } catch (err) {
      input.release();
      throw err;
    }
    this.resident = { w0, w1, input };
    return { ptr: input.bytes.byteOffset };
  }

  /** Frees the words kept in wasm memory. */
  release() {
    this.resident?.input.release();
    this.resident = null;
  }
}

// Matrices never closed still give their wasm memory back when they are garbage collected.
const residentRegistry =
  typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((streams) => streams.forEach((st) => st.release())) : null;

// An unpacked array's part (ArrayFile.part: fetched bytes, or a synchronous file read) into a
// target of slice-output.js: a JS typed array or a place in wasm memory. One copy either way.
function copyPart(part, count, elem, target) {
  const n = count * elem;
  const dst = target.array
    ? new Uint8Array(target.array.buffer, target.array.byteOffset, n)
    : getModule('bpcells').HEAPU8.subarray(target.ptr, target.ptr + n);
  if (part.bytes) dst.set(part.bytes);
  else part.read(0, count, dst);
}

/** A BPCells matrix directory opened for lazy reading. Create with open(). */
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

  /** Row names ([] when the matrix has none). options: {signal}. */
  async rowNames(options) {
    const { signal } = checkOptions('rowNames', options, ['signal']);
    return abortable(this._names('row_names', this.shape[0], 'rows'), signal, 'rowNames()');
  }

  /** Column names ([] when the matrix has none). options: {signal}. */
  async colNames(options) {
    const { signal } = checkOptions('colNames', options, ['signal']);
    return abortable(this._names('col_names', this.shape[1], 'columns'), signal, 'colNames()');
  }

  async _names(file, n, what) {
    this._nameCache ??= new Map();
    if (!this._nameCache.has(file)) {
      // HDF5 sources hand names over as strings (a name may then hold a line break).
      const read = this.source.readLines ? this.source.readLines(file) : this.source.readAll(file).then(textLines);
      const p = read.then((lines) => {
        if (lines.length !== 0 && lines.length !== n) {
          throw new BpcellsError(`${file}: ${lines.length} names for ${n} ${what}`, { file });
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
    return abortable(this._read(start, end, output, signal), signal, what);
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
    return abortable(pending, signal, what);
  }

  // Fetches everything first, then decodes synchronously into output(nnz, entries) (slice-output.js).
  async _read(start, end, output, signal) {
    const ptr = await this._idxptr.get(start, end + 1);
    const p0 = ptr[0];
    const p1 = ptr[ptr.length - 1];
    // Blocks of idxptr are checked one by one; an entry above the last one (nnz) means the
    // array decreases somewhere between them.
    if (p1 > this.nnz) {
      throw new BpcellsError(`idxptr: not monotone, entry ${end} (${p1}) is greater than the last entry (${this.nnz})`, { file: 'idxptr' });
    }
    const [indexPart, valPart] = await Promise.all([
      this._indexStream ? this._indexStream.fetch(p0, p1) : this._indexFile.part(p0, p1),
      this._valStream ? this._valStream.fetch(p0, p1) : this._valFile.part(p0, p1),
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
        throw new BpcellsError(`index: value ${index[i]} at position ${p0 + i} is out of range (must be < ${minor})`, { file: 'index' });
      }
    }
  }

  /**
   * A dense copy of major positions [start, end): shape [nrow, end-start] for 'col' order,
   * [end-start, ncol] for 'row' order, values in row-major order, in the matrix dtype.
   */
  async toDense(start = 0, end = this.major, options) {
    checkMajorRange('toDense', start, end, this.major);
    const { maxCells = 1 << 24, signal } = checkOptions('toDense', options, ['maxCells', 'signal']);
    const k = end - start;
    const cells = k * this.minor;
    if (cells > maxCells) {
      throw new BpcellsError(`toDense(${start}, ${end}): ${cells} cells exceed maxCells=${maxCells}; read() a smaller range`, {
        code: CODES.OUTPUT_LIMIT,
      });
    }
    const { idxptr, index, val } = await this.read(start, end, { signal });
    const Type = val.constructor;
    const data = new Type(cells);
    const col = this.storageOrder === 'col';
    for (let m = 0; m < k; m++) {
      for (let p = idxptr[m]; p < idxptr[m + 1]; p++) {
        const at = col ? index[p] * k + m : m * this.minor + index[p];
        data[at] += val[p];
      }
    }
    return { shape: col ? [this.shape[0], k] : [k, this.shape[1]], data };
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
    const sizes = await Promise.all(names.map((n) => this.source.size(n)));
    return Object.fromEntries(names.map((n, i) => [n, sizes[i]]));
  }
}

function parseStorageOrder(bytes) {
  const order = singleLine(bytes, 'storage_order');
  if (order !== 'row' && order !== 'col') {
    throw new BpcellsError(`storage_order: must be "row" or "col", found ${JSON.stringify(order)}`, { file: 'storage_order' });
  }
  return order;
}

/**
 * Opens a BPCells matrix directory: a local path (Node), an http(s) base URL, or an object
 * {size(name), read(name, start, end)}. Options: prefetchBytes (seek metadata loaded whole at
 * open, default 4 MiB; 0 = everything by range), and for HTTP maxBytes, timeout, signal,
 * fetch, headers.
 */
export async function open(source, options = {}) {
  return openSource(toSource(source, options ?? {}), options);
}

/** Opens a matrix from a source made already (a directory source, or an HDF5 group's). */
export async function openSource(src, options = {}) {
  options = options ?? {};
  await ensureFormat('bpcells'); // only the BPCells module: a page reading matrices needs no other
  // Fetched together; a failure is reported for the first file in this order, so that a
  // directory without a `version` says so whatever answered first.
  const first = await Promise.allSettled([src.readAll('version'), src.readAll('storage_order'), src.readAll('shape')]);
  const failed = first.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const [versionBytes, orderBytes, shapeBytes] = first.map((r) => r.value);
  const version = JSON.parse(
    wasm((mod) => withInputs('bpcells', [versionBytes], (p, l) => textAt(mod, mod._numdecode_bpcells_parse_version(p, l)))),
  );
  const storageOrder = parseStorageOrder(orderBytes);
  checkHeader(shapeBytes, 'u32', 'shape');
  if (shapeBytes.length !== HEADER + 8) {
    throw new BpcellsError(`shape: ${(shapeBytes.length - HEADER) / 4} entries, expected 2 (nrow, ncol)`, { file: 'shape' });
  }
  const sdv = new DataView(shapeBytes.buffer, shapeBytes.byteOffset + HEADER, 8);
  const shape = [sdv.getUint32(0, true), sdv.getUint32(4, true)];

  const m = Object.create(Matrix.prototype);
  Object.assign(m, {
    source: src,
    version: version.text,
    format: version.format,
    packed: version.packed,
    dtype: version.dtype,
    shape,
    storageOrder,
  });
  const major = m.major;
  const minor = m.minor;

  const budget = options.prefetchBytes ?? DEFAULT_PREFETCH;
  if (!(budget >= 0)) throw new BpcellsError(`options.prefetchBytes must be >= 0, got ${budget}`);
  const ptr = new IdxptrReader(src, version.format === 1 ? 'u32' : 'u64');
  m._idxptr = ptr;

  // Second round, all independent: idxptr, *_idx_offsets, data headers / unpacked arrays.
  const jobs = [ptr.open(major + 1)];
  const valType = version.dtype;
  if (version.packed) {
    m._indexStream = new PackedStream(src, 'index', VARIANT.d1z, version.format);
    jobs.push(m._indexStream.openSmall());
    if (valType === 'u32') {
      m._valStream = new PackedStream(src, 'val', VARIANT.m1, version.format);
      jobs.push(m._valStream.openSmall());
    }
    // The packed words of the last range read stay in wasm memory (decoded there by the next reads
    // of that range), within the I/O cache's bound: half of it per stream.
    m._residentBytes = (options.cacheBytes ?? DEFAULT_RESIDENT) / 2;
    residentRegistry?.register(m, [m._indexStream, m._valStream].filter(Boolean));
  } else {
    m._indexFile = new ArrayFile(src, 'index', 'u32');
    jobs.push(m._indexFile.probe());
  }
  if (!m._valStream) {
    m._valFile = new ArrayFile(src, 'val', valType);
    jobs.push(m._valFile.probe());
  }
  await Promise.all(jobs);

  // BPCells writes idxptr = [0, 0] for a matrix with no columns (its issue #305); shape wins.
  let ptrCount = ptr.file.count;
  if (major === 0 && ptrCount === 2 && (await ptr.get(0, 2))[1] === 0) ptrCount = 1;
  if (ptrCount !== major + 1) {
    throw new BpcellsError(
      `idxptr: ${ptr.file.count} entries, expected ${major + 1} for ${major} ${storageOrder === 'col' ? 'columns (storage_order=col)' : 'rows (storage_order=row)'}`,
      { file: 'idxptr' },
    );
  }
  m.nnz = (await ptr.get(ptrCount - 1, ptrCount))[0];
  const nnz = m.nnz;
  if (nnz > 0 && minor === 0) throw new BpcellsError(`shape: ${nnz} non-zeros but the inner dimension is 0`, { file: 'shape' });

  m._arrayNames = [];
  if (version.packed) {
    const nchunks = Math.ceil(nnz / CHUNK);
    const streams = [m._indexStream, m._valStream].filter(Boolean);
    const tableBytes = streams.reduce((s, st) => s + st.tableBytes(nchunks), 0);
    const whole = tableBytes <= budget;
    await Promise.all(streams.map((st) => st.openTables(nchunks, whole)));
    for (const st of streams) {
      m._arrayNames.push(st.data.name, st.idx.name);
      if (st.starts) m._arrayNames.push(st.starts.name);
      if (st.offsetsFile) m._arrayNames.push(st.offsetsFile.name);
    }
  } else {
    m._arrayNames.push('index');
  }
  if (!m._valStream) m._arrayNames.push('val');
  for (const f of [m._indexFile, m._valFile].filter(Boolean)) {
    if (f.count !== nnz) {
      throw new BpcellsError(
        `${f.name}: ${f.count} entries but idxptr says ${nnz} non-zeros${f.count < nnz ? ' (truncated)' : ' (trailing data)'}`,
        { file: f.name },
      );
    }
  }
  return m;
}
