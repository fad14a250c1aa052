// Pco (pcodec) encoding: numbers to a standalone file, or to one wrapped-format chunk (header,
// chunk metadata and pages, for a container to store). The encoder is a WebAssembly module of its
// own ('pco-encode'), loaded on first use: a page that only decodes loads none of it.
import { PcoError } from '../errors.js';
import { wasmCaller } from '../wasm/call.js';
import { bytesAt } from '../wasm/heap.js';
import { ensureFormat } from '../wasm/load.js';
import { encodeRequest } from './encode-options.js';

const FORMAT = 'pco-encode';
const call = wasmCaller(FORMAT, PcoError);
// The standalone format's dtype codes, which the module takes (src/pco/dtype.hpp).
const DTYPE_CODES = { u32: 1, u64: 2, i32: 3, i64: 4, f32: 5, f64: 6, u16: 7, i16: 8, f16: 9, u8: 10, i8: 11 };

// Runs the module's encoder `name` on a checked request; returns a copy of the bytes it made.
function runEncoder(mod, name, { dtype, bytes, args }) {
  const sizes = args.pageSizes === null ? new Uint8Array(0) : new Uint8Array(args.pageSizes.buffer);
  const nSizes = args.pageSizes === null ? 0 : args.pageSizes.length;
  const at = call([bytes, sizes], (ptr, len, sizesPtr) =>
    mod[name](ptr, len, DTYPE_CODES[dtype], args.level, args.mode, args.baseLo, args.baseHi, args.floatBase, args.k,
      args.delta, args.order, args.maxPageN, sizesPtr, nSizes),
  ) >>> 2;
  try {
    return bytesAt(mod, mod.HEAPU32[at], mod.HEAPU32[at + 1]);
  } finally {
    mod._numdecode_pco_encode_release();
  }
}

/**
 * Encodes numbers as a standalone Pco file (format 4.1, standalone version 3: what pcodec 1.x
 * writes), in chunks of at most options.chunkSize numbers (default 2^18, at most 2^24), or
 * exactly options.chunkSizes. values: a typed array (its dtype follows from its class; f16 as its
 * bits in a Uint16Array with options.dtype 'f16'), or an Array with options.dtype. options.level
 * 0..12 (default 8); options.mode and options.delta 'auto' (default: chosen as pcodec chooses) or
 * as pco.inspect() reports a chunk's, e.g. { kind: 'intMult', base: 1000 },
 * { kind: 'consecutive', order: 1 }. Loads the encoder module on first use.
 * @returns {Promise<Uint8Array>}
 */
export async function encode(values, options) {
  const request = encodeRequest('pco.encode', values, options, false);
  const mod = await ensureFormat(FORMAT);
  return runEncoder(mod, '_numdecode_pco_encode', request);
}

/**
 * Encodes numbers as one wrapped-format chunk for a container: { dtype, header, meta, pages }
 * where pages are { n, bytes } of at most options.pageSize numbers (default 2^18) or exactly
 * options.pageSizes. pco.wrapped.open(header).chunk(meta, dtype).decodePage(bytes, n) reads them
 * back. Other options as for encode(); a chunk holds 1 to 2^24 numbers.
 * @returns {Promise<{dtype: string, header: Uint8Array, meta: Uint8Array, pages: {n: number, bytes: Uint8Array}[]}>}
 */
export async function encodeWrapped(values, options) {
  const request = encodeRequest('pco.encodeWrapped', values, options, true);
  const mod = await ensureFormat(FORMAT);
  const framed = runEncoder(mod, '_numdecode_pco_encode_wrapped', request);
  // The module's framing: uint32 lengths before the header and the meta, a page count, then per
  // page its n and length before its bytes (src/bindings/pco_encode_bindings.cpp).
  const u32 = new DataView(framed.buffer, framed.byteOffset, framed.byteLength);
  let at = 0;
  const block = () => {
    const length = u32.getUint32(at, true);
    const bytes = framed.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    return bytes;
  };
  const header = block();
  const meta = block();
  const pages = [];
  for (let i = 0, count = u32.getUint32((at += 4) - 4, true); i < count; i++) {
    const n = u32.getUint32(at, true);
    at += 4;
    pages.push({ n, bytes: block() });
  }
  return { dtype: request.dtype, header, meta, pages };
}
