// The ALP payload of a Parquet data page (what follows the levels): this is the one part of the
// column path hyparquet lacks. Decoding itself is numdecode's ALP decoder (js/alp.js), which
// validates every header field, offset and vector before reading it.
import * as alp from '../alp.js';
import { AlpError } from '../errors.js';
import { binding, wasmCaller } from '../wasm/call.js';

const call = wasmCaller('alp', AlpError);

/**
 * The value count an ALP payload declares in its header, or a message when the header is
 * unreadable. Draft layout (first byte 1): u32 at byte 4; merged layout (first byte 0): i32 at byte 3.
 */
export function alpValueCount(payload) {
  if (payload.length < 7) return `the ALP payload has ${payload.length} bytes, less than a header`;
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  if (payload[0] === 1) {
    if (payload.length < 8) return 'the ALP payload (draft layout) is shorter than its 8-byte header';
    return view.getUint32(4, true);
  }
  if (payload[0] === 0) return view.getInt32(3, true);
  return `the ALP payload starts with byte ${payload[0]} (expected 0 = merged layout or 1 = draft layout)`;
}

/**
 * Values [start, end) of the page's non-null values, decoded into `target`: a Float32Array or
 * Float64Array of end - start values (the column's output at the page's place), or, for an output
 * in the ALP module's own memory (readView), {address, dtype}: decoded there by address, as a
 * typed array over that memory would be detached if the call grew it. `expected` is the non-null
 * count the page header and levels give; a payload declaring another is an error.
 * @throws {string}
 */
export function decodeAlpInto(payload, expected, start, end, target) {
  // a page of nulls only may carry no ALP payload at all
  if (expected === 0 && payload.length === 0) return;
  const n = alpValueCount(payload);
  if (typeof n === 'string') throw n;
  if (n !== expected) throw `the ALP payload holds ${n} values but the page has ${expected} non-null values`;
  if (start === end) return;
  try {
    if (ArrayBuffer.isView(target)) alp.decodeInto(payload, target, { start, end });
    else {
      const f32 = target.dtype === 'f32' ? 1 : 0;
      call([payload], (p, len) => binding('alp', '_numdecode_alp_decode_to')(p, len, f32, start, end, target.address));
    }
  } catch (err) {
    throw `ALP decoding failed: ${err?.message ?? err}`;
  }
}

/** The page facts inspect() lists for an ALP payload. */
export function describeAlpPayload(payload, dtype) {
  let info;
  try {
    info = alp.inspect(payload, dtype);
  } catch (err) {
    return { error: String(err?.message ?? err) };
  }
  let exceptions = 0;
  const bitWidths = [];
  const vectors = [];
  for (const v of info.vectors) {
    if (v.error !== undefined) {
      vectors.push({ index: v.index, error: v.error });
      continue;
    }
    exceptions += v.exceptions;
    bitWidths.push(v.bitWidth);
    vectors.push({ index: v.index, numValues: v.numValues, bytes: v.bytes, exponent: v.exponent, factor: v.factor, exceptions: v.exceptions, bitWidth: v.bitWidth });
  }
  return {
    layout: info.layout,
    headerBytes: info.headerBytes,
    logVectorSize: info.logVectorSize,
    vectorSize: info.vectorSize,
    numElements: info.numElements,
    numVectors: info.numVectors,
    exceptions,
    bitsPerValue: info.numElements ? (payload.length * 8) / info.numElements : 0,
    meanBitWidth: bitWidths.length ? bitWidths.reduce((a, b) => a + b, 0) / bitWidths.length : 0,
    valid: info.valid,
    vectors,
  };
}
