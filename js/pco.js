// Pco (pcodec) decoding: standalone files and the wrapped format (header, chunk metadata and
// pages supplied separately by a container such as Zarr or Parquet).
//
// The C++ bindings are stateless: every call gets all the bytes it needs. The wrapped reader
// therefore keeps its own copies of the header and chunk metadata and passes them again for
// each page.
import { describeValue, outputBytesLimit, requireAttached, requireBytes } from './bytes.js';
import { DTYPES, isDtype, typedArrayFor, viewAs } from './dtypes.js';
import { CODES, PcoError } from './errors.js';
import { wasmCaller } from './wasm/call.js';
import { bytesAt, textAt } from './wasm/heap.js';
import { getModule } from './wasm/load.js';
import { wasmView } from './wasm/views.js';

// The Pco module's entry points are plain C functions (src/bindings/pco_bindings.cpp); results that
// are more than one number wait in the module's memory: text, uint32 tables, or bytes to copy out.
const pcoModule = () => getModule('pco');
const call = wasmCaller('pco', PcoError);

let dtypeByCode = null; // dtype names by the standalone format's code (0: none), read once from the module

function dtypeNames(mod) {
  dtypeByCode ??= JSON.parse(textAt(mod, mod._numdecode_pco_dtype_names()));
  return dtypeByCode;
}

function requireDtype(what, dtype) {
  if (!isDtype(dtype)) {
    throw new TypeError(`${what} must be one of ${DTYPES.join(', ')}, got ${JSON.stringify(dtype)}`);
  }
}

// Page sizes travel as a wasm32 size_t.
const MAX_PAGE_N = 0xffffffff;

function requireCount(what, n) {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_PAGE_N) {
    throw new TypeError(`${what} must be an integer from 0 to ${MAX_PAGE_N}, got ${String(n)}`);
  }
}

// options.maxOutputBytes caps the decoded size: a small valid file of constant values can
// expand a million-fold, so callers decoding untrusted files should set it. options.dtype (where
// taken) is the dtype the caller expects; a file of another dtype is refused.
const OPTION_NAMES = { limit: ['maxOutputBytes'], typed: ['maxOutputBytes', 'dtype'] };

function checkOptionNames(what, options, names) {
  if (options === undefined || options === null) return;
  if (typeof options !== 'object') throw new TypeError(`${what}: options must be an object, got ${typeof options}`);
  for (const key of Object.keys(options)) {
    if (!names.includes(key)) throw new TypeError(`${what}: unknown option ${JSON.stringify(key)} (one of ${names.join(', ')})`);
  }
}

function outputLimit(what, options, names = OPTION_NAMES.limit) {
  checkOptionNames(what, options, names);
  const limit = outputBytesLimit(what, options?.maxOutputBytes);
  if (options?.dtype !== undefined) requireDtype(`${what}: options.dtype`, options.dtype);
  return limit;
}

function checkExpectedDtype(what, options, dtype) {
  if (options?.dtype !== undefined && dtype !== null && dtype !== options.dtype) {
    throw new PcoError(`${what}: the file holds ${dtype} values, but options.dtype is ${options.dtype}`);
  }
}

// Each chunk's dtype and a copy of its values' bytes.
function decodeRawChunks(bytes, limit) {
  const mod = pcoModule();
  const names = dtypeNames(mod);
  const at = call([bytes], (ptr, len) => mod._numdecode_pco_decode_chunks(ptr, len, limit)) >>> 2;
  try {
    const table = mod.HEAPU32;
    const chunks = [];
    for (let i = 0, n = table[at]; i < n; i++) {
      const [code, ptr, size] = table.subarray(at + 1 + 3 * i, at + 4 + 3 * i);
      chunks.push({ dtype: names[code], bytes: bytesAt(mod, ptr, size) });
    }
    return chunks;
  } finally {
    mod._numdecode_pco_release_scratch();
  }
}

// Decodes into the module's scratch buffer. Returns the file's dtype (null for a file without
// chunks that declares none) and a view of the values' bytes in wasm memory, valid only until
// the next call into the module.
function decodeToScratch(bytes, limit, into) {
  const mod = pcoModule();
  const names = dtypeNames(mod);
  const at = call([bytes], (ptr, len) => mod._numdecode_pco_decode(ptr, len, limit, into ? 1 : 0)) >>> 2;
  const heap32 = mod.HEAPU32;
  const [valuesPtr, valuesBytes, dtypeCode] = [heap32[at], heap32[at + 1], heap32[at + 2]];
  return { dtype: names[dtypeCode], view: mod.HEAPU8.subarray(valuesPtr, valuesPtr + valuesBytes) };
}

/**
 * Decodes a standalone Pco file into one typed array of the file's dtype.
 * f16 values come as their raw bits in a Uint16Array, i64/u64 as BigInt64Array/BigUint64Array.
 * A file with no chunks gives an empty array of the file's uniform dtype, or an empty
 * Uint8Array when the file does not record one (standalone versions before 3 never do).
 * Throws an Error if the chunks have different dtypes (use decodeChunks for such files).
 * @param {Uint8Array} bytes
 */
export function decode(bytes, options) {
  bytes = requireBytes('pco.decode: bytes', bytes);
  const limit = outputLimit('pco.decode', options, OPTION_NAMES.typed);
  const { dtype, view } = decodeToScratch(bytes, limit, false);
  try {
    checkExpectedDtype('pco.decode', options, dtype);
  } catch (err) {
    pcoModule()._numdecode_pco_release_scratch();
    throw err;
  }
  const raw = new Uint8Array(view.length);
  raw.set(view);
  pcoModule()._numdecode_pco_release_scratch();
  return dtype === null ? new Uint8Array(0) : viewAs(dtype, raw);
}

/**
 * Decodes a standalone Pco file into memory the caller owns: out must be a typed array of the
 * file's dtype (as decode() would return it) with room for all its values. Returns
 * out.subarray(0, count). Saves allocating a fresh array per call, which costs more than
 * decoding a file of a few hundred values, and lets chunks land straight in a larger array.
 * options.maxOutputBytes: as for decode(); out's size is a limit too.
 * @template {ArrayBufferView} T
 * @param {Uint8Array} bytes
 * @param {T} out
 * @returns {T}
 */
export function decodeInto(bytes, out, options) {
  bytes = requireBytes('pco.decodeInto: bytes', bytes);
  if (!ArrayBuffer.isView(out) || out instanceof DataView) {
    const got = out instanceof ArrayBuffer ? 'an ArrayBuffer (view it as the typed array of the file\'s dtype)' : describeValue(out);
    throw new TypeError(`pco.decodeInto: out must be a typed array, got ${got}`);
  }
  requireAttached('pco.decodeInto: out', out);
  const userLimit = outputLimit('pco.decodeInto', options);
  const limit = Math.min(userLimit, out.byteLength);
  let decoded;
  try {
    decoded = decodeToScratch(bytes, limit, true);
  } catch (err) {
    // The decoder stops as soon as a chunk would pass the limit; say when out set it.
    if (limit < userLimit && err?.code === CODES.OUTPUT_LIMIT) {
      // Too small, or the wrong class altogether? The metadata says which, without decoding.
      const dtype = dtypeOf(bytes);
      if (dtype !== null && dtype !== 'mixed' && !(out instanceof typedArrayFor(dtype))) {
        throw new TypeError(`pco.decodeInto: the file holds ${dtype} values, so out must be a ${typedArrayFor(dtype).name}; got ${out.constructor.name}`);
      }
      throw new RangeError(`pco.decodeInto: out (${out.byteLength} bytes) is too small for the file: ${err.message}`, { cause: err });
    }
    throw err;
  }
  const { dtype, view } = decoded;
  try {
    if (dtype === null) return out.subarray(0, 0);
    const Type = typedArrayFor(dtype);
    // instanceof, not constructor identity: a Node Buffer is a Uint8Array for u8 files.
    if (!(out instanceof Type)) {
      throw new TypeError(`pco.decodeInto: the file holds ${dtype} values, so out must be a ${Type.name}; got ${out.constructor.name}`);
    }
    new Uint8Array(out.buffer, out.byteOffset, view.length).set(view);
    return out.subarray(0, view.length / Type.BYTES_PER_ELEMENT);
  } finally {
    pcoModule()._numdecode_pco_release_scratch(); // a large scratch buffer is not kept, whatever happened
  }
}

/**
 * Decodes a standalone Pco file chunk by chunk, each in its own dtype.
 * @param {Uint8Array} bytes
 * @returns {{dtype: string, values: ArrayLike<number|bigint>}[]}
 */
export function decodeChunks(bytes, options) {
  bytes = requireBytes('pco.decodeChunks: bytes', bytes);
  return decodeRawChunks(bytes, outputLimit('pco.decodeChunks', options)).map((c) => ({ dtype: c.dtype, values: viewAs(c.dtype, c.bytes) }));
}

/**
 * Describes a standalone Pco file without decoding its values: versions, dtype, and for each
 * chunk its size, mode, delta encoding and entropy-coding tables.
 * @param {Uint8Array} bytes
 */
export function inspect(bytes) {
  bytes = requireBytes('pco.inspect: bytes', bytes);
  const mod = pcoModule();
  const info = JSON.parse(textAt(mod, call([bytes], (ptr, len) => mod._numdecode_pco_inspect(ptr, len))));
  for (const chunk of info.chunks) wideIntegers(chunk);
  return info;
}

// One rule for 64-bit integers, decided by type, never by the size of a value (the binding writes
// integers beyond 2^53 as strings): bin lowers of 64-bit latents, the IntMult base of 64-bit
// dtypes and the Conv1 bias (a 64-bit field for every dtype) are bigint; everything else a number.
// JSON output turns bigints to strings.
const WIDE_DTYPES = new Set(['u64', 'i64', 'f64']);

function wideIntegers(chunkInfo) {
  const wide = WIDE_DTYPES.has(chunkInfo.dtype);
  const int = (x) => (wide ? BigInt(x) : Number(x));
  if (chunkInfo.mode?.name === 'IntMult') chunkInfo.mode.base = int(chunkInfo.mode.base);
  if (chunkInfo.delta?.name === 'Conv1') chunkInfo.delta.bias = BigInt(chunkInfo.delta.bias);
  for (const v of chunkInfo.latentVars ?? []) {
    for (const bin of v.bins) bin.lower = v.latentBits === 64 ? BigInt(bin.lower) : Number(bin.lower);
  }
  return chunkInfo;
}

/**
 * The dtype a standalone file decodes to, read from its metadata without decoding values: the
 * chunks' shared dtype, the declared uniform dtype of a file without chunks, null when it declares
 * none, or 'mixed' when chunks differ (decode them with decodeChunks).
 * @returns {string|null}
 */
export function dtypeOf(bytes) {
  const info = inspect(bytes);
  const dtypes = new Set(info.chunks.map((c) => c.dtype));
  if (dtypes.size > 1) return 'mixed';
  if (dtypes.size === 1) return [...dtypes][0];
  return info.uniformDtype ?? null;
}

/**
 * Opens wrapped-format Pco data. The container stores the header once, then per chunk its
 * metadata and pages, and tells the reader the dtype and each page's value count.
 * @param {Uint8Array} headerBytes
 */
// The reader keeps the header and metas in JS and copies them in for each call, into the module of
// the moment: a releaseMemory() that replaces the module between calls loses nothing.
function open(headerBytes) {
  headerBytes = requireBytes('pco.wrapped.open: headerBytes', headerBytes);
  const header = headerBytes.slice();
  const { formatVersion } = JSON.parse(textAt(pcoModule(), call([header], (hp, hl) => pcoModule()._numdecode_pco_wrapped_header(hp, hl))));
  return {
    formatVersion,
    chunk(metaBytes, dtype) {
      metaBytes = requireBytes('pco.wrapped chunk: metaBytes', metaBytes);
      requireDtype('pco.wrapped chunk: dtype', dtype);
      const code = dtypeNames(pcoModule()).indexOf(dtype);
      const meta = metaBytes.slice();
      const info = wideIntegers(
        JSON.parse(textAt(pcoModule(), call([header, meta], (hp, hl, mp, ml) => pcoModule()._numdecode_pco_wrapped_chunk(hp, hl, mp, ml, code)))),
      );
      return {
        info,
        decodePage(pageBytes, n) {
          pageBytes = requireBytes('pco.wrapped decodePage: pageBytes', pageBytes);
          requireCount('pco.wrapped decodePage: n', n);
          const at = call([header, meta, pageBytes], (hp, hl, mp, ml, pp, pl) =>
            pcoModule()._numdecode_pco_wrapped_page(hp, hl, mp, ml, code, pp, pl, n),
          ) >>> 2;
          const mod = pcoModule();
          return viewAs(dtype, bytesAt(mod, mod.HEAPU32[at], mod.HEAPU32[at + 1]));
        },
      };
    },
  };
}

export const wrapped = Object.freeze({ open });

// Encoding: js/pco/encode.js (docs there), imported on first use, so a decoding page loads none of it.
export const encode = async (...args) => (await import('./pco/encode.js')).encode(...args);
export const encodeWrapped = async (...args) => (await import('./pco/encode.js')).encodeWrapped(...args);

// ---- Zero-copy views -------------------------------------------------------------------------

/**
 * Decodes a standalone Pco file like decode(), but leaves the values in wasm memory and returns
 * a view of them instead of a copy. Call release() as soon as the values are consumed: until
 * then the memory stays allocated (a view that is never released leaks).
 *
 * view.values is a typed array over wasm memory. It is valid until release(), except that any
 * later numdecode call may grow wasm memory, which detaches typed arrays taken before it (they
 * then read as length 0). Reading view.values again after such a call gives a fresh, valid array.
 * After release(), view.values throws; a typed array taken earlier must not be used any more:
 * its memory is reused by later decodes. options.maxOutputBytes: as for decode().
 * @param {Uint8Array} bytes
 * @param {{maxOutputBytes?: number}} [options]
 */
export function decodeView(bytes, options) {
  bytes = requireBytes('pco.decodeView: bytes', bytes);
  const limit = outputLimit('pco.decodeView', options, OPTION_NAMES.typed);
  const mod = pcoModule();
  const names = dtypeNames(mod);
  const at = call([bytes], (p, len) => mod._numdecode_pco_decode_view(p, len, limit)) >>> 2;
  const [handle, dtypeCode, ptr, byteLength] = mod.HEAPU32.subarray(at, at + 4);
  // dtype: the file's, or null for a file without chunks that declares none.
  const dtype = names[dtypeCode];
  const release = () => mod._numdecode_pco_release_view(handle) === 1;
  try {
    checkExpectedDtype('pco.decodeView', options, dtype);
  } catch (err) {
    release();
    throw err;
  }
  const Type = typedArrayFor(dtype ?? 'u8');
  const length = byteLength / Type.BYTES_PER_ELEMENT;
  return wasmView('pco', 'pco.decodeView', Type, ptr, length, release, { dtype, length, byteLength });
}

/** How many zero-copy views are live and how many bytes of wasm memory they hold. */
export function viewStats() {
  const mod = pcoModule();
  const at = mod._numdecode_pco_view_stats() >>> 2;
  return { live: mod.HEAPU32[at], bytes: mod.HEAPU32[at + 1] };
}
