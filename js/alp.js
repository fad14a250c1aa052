// ALP (Apache Parquet ALP encoding proposal) pages of f32 or f64 values: decode, random access
// by vector, inspect, encode. Both page layouts are read: the draft one with a version byte
// (first byte 1) and the merged Parquet one without it (first byte 0).
import { AlpError } from './errors.js';
import { asFormatError, binding as fn, callWithInputs, getModule, viewAs } from './wasm.js';

const ALP_DTYPES = ['f32', 'f64'];

function checkDtype(dtype) {
  if (!ALP_DTYPES.includes(dtype)) {
    throw new TypeError(`alp: dtype must be 'f32' or 'f64', got ${JSON.stringify(dtype)}`);
  }
}

// Accepts Uint8Array (Node Buffers included), any other ArrayBufferView, or an (Shared)ArrayBuffer.
function asBytes(bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (typeof SharedArrayBuffer === 'function' && bytes instanceof SharedArrayBuffer) return new Uint8Array(bytes);
  throw new TypeError('alp: page bytes must be a Uint8Array, ArrayBufferView or ArrayBuffer');
}

function checkIndex(x, what) {
  if (!Number.isSafeInteger(x) || x < 0) throw new RangeError(`alp: ${what} must be a non-negative integer, got ${x}`);
}

// Runs a call into the module; the decoder's errors become AlpError with their code.
function guard(call) {
  try {
    return call();
  } catch (err) {
    throw asFormatError(err, AlpError);
  }
}

// The binding reports frames as decimal strings (an i64 frame does not fit a JS number).
function parseInspect(json, dtype) {
  const info = JSON.parse(json);
  for (const v of info.vectors) {
    if (v.frameOfReference !== undefined) {
      v.frameOfReference = dtype === 'f32' ? Number(v.frameOfReference) : BigInt(v.frameOfReference);
    }
  }
  return info;
}

/**
 * Decodes a whole page.
 * @returns {Float32Array|Float64Array}
 */
export function decode(bytes, dtype) {
  checkDtype(dtype);
  const page = asBytes(bytes);
  const decodeFn = fn('alpDecode');
  return viewAs(dtype, callWithInputs(AlpError, [page], (ptr, len) => decodeFn(ptr, len, dtype)));
}

/** Decodes vector k only (values k*vectorSize ... ), reading nothing else of the page. */
export function decodeVector(bytes, dtype, k) {
  checkDtype(dtype);
  checkIndex(k, 'vector index');
  const page = asBytes(bytes);
  const decodeFn = fn('alpDecodeVector');
  return viewAs(dtype, callWithInputs(AlpError, [page], (ptr, len) => decodeFn(ptr, len, dtype, k)));
}

/** Decodes values [start, end), touching only the vectors that hold them. */
export function decodeRange(bytes, dtype, start, end) {
  checkDtype(dtype);
  checkIndex(start, 'range start');
  checkIndex(end, 'range end');
  const page = asBytes(bytes);
  const decodeFn = fn('alpDecodeRange');
  return viewAs(dtype, callWithInputs(AlpError, [page], (ptr, len) => decodeFn(ptr, len, dtype, start, end)));
}

/**
 * Header fields and per-vector metadata. A malformed vector is listed as {index, error} and
 * `valid` is false; a malformed header throws.
 */
export function inspect(bytes, dtype) {
  checkDtype(dtype);
  const page = asBytes(bytes);
  const inspectFn = fn('alpInspect');
  return parseInspect(callWithInputs(AlpError, [page], (ptr, len) => inspectFn(ptr, len, dtype)), dtype);
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
  const encodeFn = fn('alpEncode');
  return callWithInputs(AlpError, [raw], (ptr, len) => encodeFn(ptr, len, dtype, layout, logVectorSize, exponent, factor));
}

/**
 * A page kept in wasm memory for repeated random access: only the first call copies it in.
 * Call close() when done (or use `using page = alp.open(...)` where supported).
 */
export function open(bytes, dtype) {
  checkDtype(dtype);
  const page = asBytes(bytes);
  const mod = getModule();
  const names = ['alpDecode', 'alpDecodeVector', 'alpDecodeRange', 'alpInspect'];
  const f = Object.fromEntries(names.map((n) => [n, fn(n)]));
  let ptr = mod._malloc(Math.max(page.length, 1));
  if (ptr === 0) throw new AlpError(`numdecode: out of wasm memory copying ${page.length} page bytes`, { code: 'ERR_OUTPUT_LIMIT' });
  mod.HEAPU8.set(page, ptr);
  const len = page.length;
  const live = () => {
    if (ptr === 0) throw new Error('alp: this page was closed');
    return ptr;
  };
  let info = null;
  const reader = {
    dtype,
    /** Header and per-vector metadata (cached). */
    inspect() {
      info ??= parseInspect(guard(() => f.alpInspect(live(), len, dtype)), dtype);
      return info;
    },
    get length() {
      return this.inspect().numElements;
    },
    get numVectors() {
      return this.inspect().numVectors;
    },
    decode() {
      return viewAs(dtype, guard(() => f.alpDecode(live(), len, dtype)));
    },
    decodeVector(k) {
      checkIndex(k, 'vector index');
      return viewAs(dtype, guard(() => f.alpDecodeVector(live(), len, dtype, k)));
    },
    decodeRange(start, end) {
      checkIndex(start, 'range start');
      checkIndex(end, 'range end');
      return viewAs(dtype, guard(() => f.alpDecodeRange(live(), len, dtype, start, end)));
    },
    close() {
      if (ptr !== 0) mod._free(ptr);
      ptr = 0;
    },
  };
  if (typeof Symbol.dispose === 'symbol') reader[Symbol.dispose] = reader.close;
  return reader;
}
