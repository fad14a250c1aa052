// ALP (Apache Parquet ALP encoding proposal) pages of f32 or f64 values: decode, random access
// by vector, inspect, encode. Both page layouts are read: the draft one with a version byte
// (first byte 1) and the merged Parquet one without it (first byte 0).
import { outputBytesLimit, requireAttached, requireBytes } from './bytes.js';
import { viewAs } from './dtypes.js';
import { AlpError, CODES } from './errors.js';
import { binding as fn, wasmCaller } from './wasm/call.js';
import { bytesAt, malloc, textAt } from './wasm/heap.js';
import { getModule } from './wasm/load.js';
import { wasmView } from './wasm/views.js';

const ALP_DTYPES = ['f32', 'f64'];

function checkDtype(dtype) {
  if (!ALP_DTYPES.includes(dtype)) {
    throw new TypeError(`alp: dtype must be 'f32' or 'f64', got ${JSON.stringify(dtype)}`);
  }
}

function checkIndex(x, what) {
  if (!Number.isSafeInteger(x) || x < 0) throw new RangeError(`alp: ${what} must be a non-negative integer, got ${x}`);
}

// Every call into the module: the decoder's errors become AlpError with their code.
const call = wasmCaller('alp', AlpError);

// The bytes a call left for us ({ptr, size} at resultPtr, see alp_bindings.cpp), copied out; the
// module keeps a small result for reuse and frees a large one now.
function takeResult(resultPtr) {
  const mod = getModule('alp');
  const size = mod.HEAPU32[(resultPtr >>> 2) + 1];
  const bytes = bytesAt(mod, mod.HEAPU32[resultPtr >>> 2], size);
  if (size >= 1 << 20) fn('alp', '_numdecode_alp_release_result')();
  return bytes;
}

// Vector k of the page at ptr (in wasm memory) as a fresh typed array.
function vectorAt(ptr, len, dtype, k) {
  const at = call([], () => fn('alp', '_numdecode_alp_decode_vector')(ptr, len, dtype === 'f32' ? 1 : 0, k));
  return viewAs(dtype, takeResult(at));
}

// The page's inspect() JSON; the binding reports frames as decimal strings (an i64 frame does not
// fit a JS number).
function inspectAt(ptr, len, dtype) {
  const json = textAt(getModule('alp'), call([], () => fn('alp', '_numdecode_alp_inspect')(ptr, len, dtype === 'f32' ? 1 : 0)));
  return parseInspect(json, dtype);
}

function parseInspect(json, dtype) {
  const info = JSON.parse(json);
  for (const v of info.vectors) {
    if (v.frameOfReference !== undefined) {
      v.frameOfReference = dtype === 'f32' ? Number(v.frameOfReference) : BigInt(v.frameOfReference);
    }
  }
  return info;
}

// decode / decodeView options: the dtype (the page does not record it), a value range and a
// limit. A bare 'f32' / 'f64' string is the dtype alone.
const OPTION_NAMES = new Set(['dtype', 'start', 'end', 'maxOutputBytes']);

function readOptions(what, options, dtypeFromOut) {
  const o = typeof options === 'string' ? { dtype: options } : (options ?? {});
  if (typeof o !== 'object') throw new TypeError(`${what}: options must be an object or a dtype string, got ${typeof o}`);
  for (const key of Object.keys(o)) {
    if (!OPTION_NAMES.has(key)) throw new TypeError(`${what}: unknown option ${JSON.stringify(key)} (one of ${[...OPTION_NAMES].join(', ')})`);
  }
  const dtype = o.dtype ?? dtypeFromOut;
  checkDtype(dtype);
  if (dtypeFromOut !== undefined && dtype !== dtypeFromOut) {
    throw new TypeError(`${what}: options.dtype is ${dtype} but out is a ${dtypeFromOut === 'f32' ? 'Float32Array' : 'Float64Array'}`);
  }
  if (o.start !== undefined) checkIndex(o.start, 'options.start');
  if (o.end !== undefined) checkIndex(o.end, 'options.end');
  const limit = outputBytesLimit(what, o.maxOutputBytes);
  return { dtype, start: o.start, end: o.end, limit };
}

const BYTES = { f32: 4, f64: 8 };

// The range [start, end) of a page of `total` values, checked; a range past the page is the
// caller's mistake (RangeError), a page too big for the limit an ERR_OUTPUT_LIMIT.
function resolveRange(what, total, { dtype, start = 0, end = total, limit }) {
  if (start > end || end > total) {
    throw new RangeError(`${what}: range [${start}, ${end}) is outside the page's ${total} values`);
  }
  const bytes = (end - start) * BYTES[dtype];
  if (bytes > limit) {
    throw new AlpError(`${what}: ${end - start} ${dtype} values (${bytes} bytes) exceed maxOutputBytes=${limit}`, {
      code: CODES.OUTPUT_LIMIT,
    });
  }
  return { start, end, count: end - start, bytes };
}

// Decodes [start, end) of the page at pagePtr (already in wasm memory) into a fresh wasm buffer
// from malloc. The caller frees.
function decodeToHeap(what, pagePtr, pageLen, opts) {
  const mod = getModule('alp');
  const f32 = opts.dtype === 'f32' ? 1 : 0;
  const total = call([], () => mod._numdecode_alp_size(pagePtr, pageLen, f32));
  const range = resolveRange(what, total, opts);
  const out = malloc(mod, Math.max(range.bytes, 1));
  if (out === 0) throw new AlpError(`${what}: out of wasm memory for ${range.bytes} output bytes`, { code: CODES.OUTPUT_LIMIT });
  try {
    call([], () => mod._numdecode_alp_decode_to(pagePtr, pageLen, f32, range.start, range.end, out));
  } catch (err) {
    mod._free(out);
    throw err;
  }
  return { ptr: out, count: range.count };
}


// Output bytes per piece when a range is decoded into JS memory: 1 MiB, 2^18 f32 or 2^17 f64
// values, multiples of every vector size (2^15 at most), so that pieces aligned to them never cut
// a vector. Measured on price2 and sensor3 (2-core EPYC, 1 MiB L2): copying out pieces of 128-512
// KiB ran at half the speed of one large copy (the large copy bypasses the cache), 1-2 MiB pieces
// beat decoding the whole output into wasm memory and copying it out (f64: 1.7 against 2.2 ms).
const PIECE_BYTES = 1 << 20;

// Decodes [start, end) of the page at pagePtr (already in wasm memory) into the JS array that
// makeOut(count) returns: piece by piece, each decoded into one wasm buffer and copied out while
// in cache, instead of the whole output written to wasm memory and read back. A range of several
// pieces has every vector it touches checked first: nothing is written to the caller's array
// when the page is bad, and a bad page claiming a huge count gets no array of that size.
function decodeToJs(what, pagePtr, pageLen, opts, makeOut) {
  const mod = getModule('alp');
  const f32 = opts.dtype === 'f32' ? 1 : 0;
  const total = call([], () => mod._numdecode_alp_size(pagePtr, pageLen, f32));
  const { start, end, count } = resolveRange(what, total, opts);
  const Type = f32 ? Float32Array : Float64Array;
  const pieceValues = PIECE_BYTES / Type.BYTES_PER_ELEMENT;
  const onePiece = count <= pieceValues;
  if (!onePiece) call([], () => mod._numdecode_alp_check(pagePtr, pageLen, f32, start, end));
  const out = makeOut(count);
  const scratchBytes = Math.max(Math.min(count, pieceValues) * Type.BYTES_PER_ELEMENT, 1);
  const scratch = malloc(mod, scratchBytes);
  if (scratch === 0) throw new AlpError(`${what}: out of wasm memory for ${scratchBytes} output bytes`, { code: CODES.OUTPUT_LIMIT });
  try {
    for (let lo = start; lo < end; ) {
      const hi = onePiece ? end : Math.min(end, (Math.floor(lo / pieceValues) + 1) * pieceValues);
      call([], () => mod._numdecode_alp_decode_to(pagePtr, pageLen, f32, lo, hi, scratch));
      // HEAPU8 is re-read each time: a decode that cuts a vector allocates, which may grow memory.
      out.set(new Type(mod.HEAPU8.buffer, scratch, hi - lo), lo - start);
      lo = hi;
    }
  } finally {
    mod._free(scratch);
  }
  return count;
}

// [start, end) of the page at pagePtr (in wasm memory) as a fresh typed array.
function decodeFresh(what, pagePtr, pageLen, opts) {
  const Type = opts.dtype === 'f32' ? Float32Array : Float64Array;
  let values;
  const allocate = (count) => {
    try {
      return (values = new Type(count));
    } catch (err) {
      // V8 throws a RangeError when it cannot allocate the array (a valid page may expand ~2500-fold).
      throw new AlpError(`${what}: out of memory for ${count} ${opts.dtype} values`, { code: CODES.OUTPUT_LIMIT, cause: err });
    }
  };
  decodeToJs(what, pagePtr, pageLen, opts, allocate);
  return values;
}

/**
 * Decodes a page (or values [start, end) of it, touching only the vectors that hold them) into a
 * fresh Float32Array / Float64Array. `options` is the dtype ('f32' | 'f64') or
 * {dtype, start?, end?, maxOutputBytes?}.
 * @returns {Float32Array|Float64Array}
 */
export function decode(bytes, options) {
  const opts = readOptions('alp.decode', options);
  const page = requireBytes('alp.decode: bytes', bytes);
  return call([page], (p, len) => decodeFresh('alp.decode', p, len, opts));
}

/**
 * Decodes into memory the caller owns: `out` is a Float32Array (f32 pages) or Float64Array (f64)
 * with room for the values; returns out.subarray(0, count). options: {start?, end?,
 * maxOutputBytes?} (dtype comes from out). Nothing is written to out when the page is bad.
 */
export function decodeInto(bytes, out, options) {
  let outDtype;
  if (out instanceof Float32Array) outDtype = 'f32';
  else if (out instanceof Float64Array) outDtype = 'f64';
  else throw new TypeError(`alp.decodeInto: out must be a Float32Array or Float64Array, got ${out?.constructor?.name ?? typeof out}`);
  requireAttached('alp.decodeInto: out', out);
  const opts = readOptions('alp.decodeInto', options, outDtype);
  const page = requireBytes('alp.decodeInto: bytes', bytes);
  const fits = (count) => {
    if (count > out.length) {
      throw new RangeError(`alp.decodeInto: out has room for ${out.length} values, the page range holds ${count}`);
    }
    return out;
  };
  const count = call([page], (p, len) => decodeToJs('alp.decodeInto', p, len, opts, fits));
  return out.subarray(0, count);
}

/**
 * Decodes into wasm memory and returns a view instead of a copy: {dtype, length, values,
 * release()} (also close() and [Symbol.dispose]). Same rules as pco.decodeView: view.values is
 * valid until release(); re-read it after other numdecode calls (memory growth detaches it).
 */
export function decodeView(bytes, options) {
  const opts = readOptions('alp.decodeView', options);
  const page = requireBytes('alp.decodeView: bytes', bytes);
  const { ptr, count } = call([page], (p, len) => decodeToHeap('alp.decodeView', p, len, opts));
  const Type = opts.dtype === 'f32' ? Float32Array : Float64Array;
  return wasmView('alp', 'alp.decodeView', Type, ptr, count, () => getModule('alp')._free(ptr), { dtype: opts.dtype, length: count, byteLength: count * Type.BYTES_PER_ELEMENT });
}

/** Decodes vector k only (values k*vectorSize ... ), reading nothing else of the page. */
export function decodeVector(bytes, dtype, k) {
  checkDtype(dtype);
  checkIndex(k, 'vector index');
  const page = requireBytes('alp.decodeVector: bytes', bytes);
  return call([page], (ptr, len) => vectorAt(ptr, len, dtype, k));
}

/** Decodes values [start, end), touching only the vectors that hold them (decode with a range). */
export function decodeRange(bytes, dtype, start, end) {
  checkDtype(dtype);
  checkIndex(start, 'range start');
  checkIndex(end, 'range end');
  return decode(bytes, { dtype, start, end });
}

/**
 * Header fields and per-vector metadata. A malformed vector is listed as {index, error} and
 * `valid` is false; a malformed header throws.
 */
export function inspect(bytes, dtype) {
  checkDtype(dtype);
  const page = requireBytes('alp.inspect: bytes', bytes);
  return call([page], (ptr, len) => inspectAt(ptr, len, dtype));
}

/**
 * Encodes values as one ALP page that decode() returns bit-exactly (NaN payloads, -0.0 included).
 * @param {Float32Array|Float64Array} values
 * @param {{layout?: 'draft'|'merged', logVectorSize?: number, exponent?: number, factor?: number}} [options]
 *   exponent/factor force one (e, f) for every vector instead of sampling.
 * @returns {Uint8Array}
 */
export function encode(values, options = {}) {
  let dtype;
  if (values instanceof Float32Array) dtype = 'f32';
  else if (values instanceof Float64Array) dtype = 'f64';
  else throw new TypeError('alp.encode: values must be a Float32Array or Float64Array');
  requireAttached('alp.encode: values', values);
  options = options ?? {};
  const layout = options.layout ?? 'draft';
  if (layout !== 'draft' && layout !== 'merged') {
    throw new TypeError(`alp.encode: options.layout must be 'draft' or 'merged', got ${JSON.stringify(layout)}`);
  }
  const logVectorSize = options.logVectorSize ?? 10;
  if (!Number.isInteger(logVectorSize) || logVectorSize < 3 || logVectorSize > 15) {
    throw new RangeError(`alp.encode: options.logVectorSize must be an integer in [3, 15], got ${logVectorSize}`);
  }
  let exponent = -1;
  let factor = -1;
  if (options.exponent !== undefined || options.factor !== undefined) {
    exponent = options.exponent ?? 0;
    factor = options.factor ?? 0;
    const maxExponent = dtype === 'f32' ? 10 : 18;
    if (!Number.isInteger(exponent) || exponent < 0 || exponent > maxExponent) {
      throw new RangeError(`alp.encode: options.exponent must be an integer in [0, ${maxExponent}], got ${exponent}`);
    }
    if (!Number.isInteger(factor) || factor < 0 || factor > exponent) {
      throw new RangeError(`alp.encode: options.factor must be an integer in [0, exponent], got ${factor}`);
    }
  }
  const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const encodeFn = fn('alp', '_numdecode_alp_encode');
  const f32 = dtype === 'f32' ? 1 : 0;
  const merged = layout === 'merged' ? 1 : 0;
  return call([raw], (ptr, len) => takeResult(encodeFn(ptr, len, f32, merged, logVectorSize, exponent, factor)));
}

/**
 * A page kept in wasm memory for repeated random access: only the first call copies it in.
 * Call close() when done (or use `using page = alp.open(...)` where supported).
 */
// A reader dropped without close() frees its page copy when it is garbage-collected (it hands
// out only copies, so nothing can still point into that memory).
const unclosedPages = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((free) => free()) : null;

export function open(bytes, dtype) {
  checkDtype(dtype);
  // Kept in JS too: when releaseMemory() replaces the module (nothing counts this reader as holding
  // it), the next call copies the page into the new one.
  const page = requireBytes('alp.open: bytes', bytes).slice();
  const len = page.length;
  let mod = null;
  let ptr = 0;
  let closed = false;
  const copyIn = () => {
    const now = getModule('alp');
    const at = malloc(now, Math.max(len, 1));
    if (at === 0) throw new AlpError(`numdecode: out of wasm memory copying ${len} page bytes`, { code: 'ERR_OUTPUT_LIMIT' });
    now.HEAPU8.set(page, at);
    [mod, ptr] = [now, at];
    unclosedPages?.unregister(reader);
    unclosedPages?.register(reader, () => now._free(at), reader);
  };
  const live = () => {
    if (closed) throw new Error('alp: this page was closed');
    if (getModule('alp') !== mod) copyIn();
    return ptr;
  };
  let info = null;
  const reader = {
    dtype,
    /** Header and per-vector metadata (cached). */
    inspect() {
      info ??= inspectAt(live(), len, dtype);
      return info;
    },
    get length() {
      return this.inspect().numElements;
    },
    get numVectors() {
      return this.inspect().numVectors;
    },
    decode() {
      return decodeFresh('alp page decode', live(), len, { dtype, limit: Infinity });
    },
    decodeVector(k) {
      checkIndex(k, 'vector index');
      return vectorAt(live(), len, dtype, k);
    },
    decodeRange(start, end) {
      checkIndex(start, 'range start');
      checkIndex(end, 'range end');
      return decodeFresh('alp page decodeRange', live(), len, { dtype, start, end, limit: Infinity });
    },
    close() {
      if (!closed && mod === getModule('alp')) mod._free(ptr); // a replaced module took its memory with it
      closed = true;
      ptr = 0;
      unclosedPages?.unregister(reader);
    },
  };
  copyIn();
  reader.release = reader.close;
  if (typeof Symbol.dispose === 'symbol') reader[Symbol.dispose] = reader.close;
  return reader;
}
