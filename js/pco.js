// Pco (pcodec) decoding: standalone files and the wrapped format (header, chunk metadata and
// pages supplied separately by a container such as Zarr or Parquet).
//
// The C++ bindings are stateless: every call gets all the bytes it needs. The wrapped reader
// therefore keeps its own copies of the header and chunk metadata and passes them again for
// each page.
import { DTYPES, binding, isDtype, typedArrayFor, viewAs, withInputs } from './wasm.js';

function describeValue(value) {
  if (value === null) return 'null';
  if (value instanceof ArrayBuffer) return 'an ArrayBuffer (wrap it: new Uint8Array(buffer))';
  if (typeof value === 'object') return value.constructor?.name ?? 'an object';
  return typeof value;
}

function requireBytes(what, value) {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array, got ${describeValue(value)}`);
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

function decodeRawChunks(bytes) {
  const decodeChunksBinding = binding('pcoDecodeChunks');
  return withInputs([bytes], (ptr, len) => decodeChunksBinding(ptr, len));
}

/**
 * Decodes a standalone Pco file into one typed array of the file's dtype.
 * f16 values come as their raw bits in a Uint16Array, i64/u64 as BigInt64Array/BigUint64Array.
 * A file with no chunks gives an empty array of the file's uniform dtype, or an empty
 * Uint8Array when the file does not record one (standalone versions before 3 never do).
 * Throws an Error if the chunks have different dtypes (use decodeChunks for such files).
 * @param {Uint8Array} bytes
 */
export function decode(bytes) {
  requireBytes('pco.decode: bytes', bytes);
  const chunks = decodeRawChunks(bytes);
  if (chunks.length === 0) {
    const { uniformDtype } = inspect(bytes);
    return uniformDtype ? new (typedArrayFor(uniformDtype))(0) : new Uint8Array(0);
  }
  const dtype = chunks[0].dtype;
  const other = chunks.find((c) => c.dtype !== dtype);
  if (other) {
    throw new Error(
      `pco.decode: the file's chunks have different dtypes (${dtype} and ${other.dtype}); ` +
        'use pco.decodeChunks to get each chunk in its own dtype',
    );
  }
  if (chunks.length === 1) return viewAs(dtype, chunks[0].bytes);
  const total = chunks.reduce((sum, c) => sum + c.bytes.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c.bytes, at);
    at += c.bytes.length;
  }
  return viewAs(dtype, out);
}

/**
 * Decodes a standalone Pco file chunk by chunk, each in its own dtype.
 * @param {Uint8Array} bytes
 * @returns {{dtype: string, values: ArrayLike<number|bigint>}[]}
 */
export function decodeChunks(bytes) {
  requireBytes('pco.decodeChunks: bytes', bytes);
  return decodeRawChunks(bytes).map((c) => ({ dtype: c.dtype, values: viewAs(c.dtype, c.bytes) }));
}

/**
 * Describes a standalone Pco file without decoding its values: versions, dtype, and for each
 * chunk its size, mode, delta encoding and entropy-coding tables.
 * @param {Uint8Array} bytes
 */
export function inspect(bytes) {
  requireBytes('pco.inspect: bytes', bytes);
  const inspectBinding = binding('pcoInspect');
  return JSON.parse(withInputs([bytes], (ptr, len) => inspectBinding(ptr, len)));
}

/**
 * Opens wrapped-format Pco data. The container stores the header once, then per chunk its
 * metadata and pages, and tells the reader the dtype and each page's value count.
 * @param {Uint8Array} headerBytes
 */
function open(headerBytes) {
  requireBytes('pco.wrapped.open: headerBytes', headerBytes);
  const readHeader = binding('pcoWrappedHeader');
  const readChunk = binding('pcoWrappedChunk');
  const decodePageBinding = binding('pcoWrappedPage');
  const header = headerBytes.slice();
  const { formatVersion } = JSON.parse(withInputs([header], (hp, hl) => readHeader(hp, hl)));
  return {
    formatVersion,
    chunk(metaBytes, dtype) {
      requireBytes('pco.wrapped chunk: metaBytes', metaBytes);
      requireDtype('pco.wrapped chunk: dtype', dtype);
      const meta = metaBytes.slice();
      const info = JSON.parse(
        withInputs([header, meta], (hp, hl, mp, ml) => readChunk(hp, hl, mp, ml, dtype)),
      );
      return {
        info,
        decodePage(pageBytes, n) {
          requireBytes('pco.wrapped decodePage: pageBytes', pageBytes);
          requireCount('pco.wrapped decodePage: n', n);
          const raw = withInputs([header, meta, pageBytes], (hp, hl, mp, ml, pp, pl) =>
            decodePageBinding(hp, hl, mp, ml, dtype, pp, pl, n),
          );
          return viewAs(dtype, raw);
        },
      };
    },
  };
}

export const wrapped = Object.freeze({ open });
