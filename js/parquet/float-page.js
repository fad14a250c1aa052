// One data page of a FLOAT / DOUBLE leaf, decoded straight into the column's output array: its
// validity from the definition levels (levels.js), its values written densely at the page's
// place, then spread over the rows in place around the nulls. ALP values come from numdecode's
// ALP decoder, PLAIN / BYTE_STREAM_SPLIT / dictionary values are copied byte for byte (NaN
// payloads and -0 survive). No array per page.
import { readPlain } from 'hyparquet/src/plain.js';
import { decodeRuns, levelBitWidth, readValidity } from './levels.js';
import { decompress, encodingName, ALP_ENCODING_ID } from './pages.js';
import { decodeAlpInto } from './alp-page.js';
import { spreadInWasm, validityInWasm, wasmBytes } from './page-nulls.js';
import { getModule } from '../wasm/load.js';

// Whether inflatePage's result is a promise. A synchronous codec's result is a view of its reused
// buffer: the caller reads it before anything awaits (another read may reuse the buffer).
export const isPromise = (x) => typeof x?.then === 'function';

/**
 * The page's bytes, decompressed (a promise when the codec is asynchronous): a v1 or dictionary
 * page whole, a v2 page's values (its levels are stored uncompressed before them).
 * @param {Uint8Array} body the page bytes after its header
 * @param {{type: string, header: object}} page
 * @param {{codec: string, inflate: Function|null, chunkUncompressed?: number}} col
 * @throws {string}
 */
export function inflatePage(body, page, col) {
  const { header } = page;
  if (page.type !== 'DATA_PAGE_V2') return decompress(body, header.uncompressed_page_size, col.codec, col.inflate, col.chunkUncompressed);
  const h = header.data_page_header_v2;
  const levels = h.repetition_levels_byte_length + h.definition_levels_byte_length;
  const rest = body.subarray(levels);
  const size = header.uncompressed_page_size - levels;
  if (h.is_compressed === false) {
    if (rest.length !== size) throw `an uncompressed v2 page body of ${rest.length} bytes says it holds ${size}`;
    return rest;
  }
  return decompress(rest, size, col.codec, col.inflate, col.chunkUncompressed);
}

/**
 * Where a page's definition levels and values lie: levels [start, end) of `levelBytes` (null when
 * the page has none) and the value payload.
 * @param {Uint8Array} body the page bytes after its header
 * @param {Uint8Array} inflated inflatePage's result
 * @throws {string}
 */
export function splitPage(body, inflated, page, col) {
  const { header } = page;
  if (page.type === 'DATA_PAGE') {
    const numValues = header.data_page_header.num_values;
    if (col.maxDef === 0) return { numValues, levels: null, payload: inflated };
    if (inflated.length < 4) throw `the page has ${inflated.length} bytes, too few for its definition levels`;
    const len = new DataView(inflated.buffer, inflated.byteOffset, 4).getUint32(0, true);
    if (4 + len > inflated.length) throw `definition levels claim ${len} bytes but the page has ${inflated.length - 4}`;
    return { numValues, levels: { bytes: inflated, start: 4, end: 4 + len }, payload: inflated.subarray(4 + len) };
  }
  const h = header.data_page_header_v2;
  const numValues = h.num_values;
  const rl = h.repetition_levels_byte_length;
  const dl = h.definition_levels_byte_length;
  if (rl !== 0 && col.maxRep === 0) throw `a flat column's page has ${rl} bytes of repetition levels`;
  if (h.num_rows !== numValues && col.maxRep === 0) throw `a flat column's page has ${h.num_rows} rows for ${numValues} values`;
  if (col.maxDef === 0 && dl !== 0) throw `a REQUIRED column's page has ${dl} bytes of definition levels`;
  const levels = col.maxDef > 0 && dl > 0 ? { bytes: body, start: rl, end: rl + dl } : null;
  return { numValues, levels, payload: inflated };
}

/**
 * Validity of the page's values into out[at ...], which must hold 1s (present): the nulls are
 * written as 0. Returns the number present.
 * @throws {string}
 */
export function pageValidity(split, page, col, out, at) {
  const { numValues, levels } = split;
  let present = numValues;
  if (levels) {
    present = readValidity(levels.bytes, levels.start, levels.end, levelBitWidth(col.maxDef), numValues, col.maxDef, out, at);
    if (typeof present === 'string') throw `definition levels: ${present}`;
  }
  checkNullCount(page, numValues, present);
  return present;
}

function countOnes(a, from, to) {
  let n = 0;
  for (let i = from; i < to; i++) n += a[i];
  return n;
}

// The bytes of out[at, at + count) (count values).
function bytesOfOut(out, at, count) {
  const w = out.BYTES_PER_ELEMENT;
  return new Uint8Array(out.buffer, out.byteOffset + at * w, count * w);
}

// The output's values as a typed array: `out` itself, or, for an output in the ALP module's memory
// ({address, dtype, values}), a view of it made now (a wasm call since may have grown the memory).
const arrayOf = (out) => (ArrayBuffer.isView(out) ? out : out.values);

/**
 * Non-null values [k0, k1) of the page written to out[at ...]; `out` a typed array or an output
 * in the ALP module's memory, as decodePageInto takes it.
 * @throws {string | {unsupported: string}}
 */
export function denseInto(encodingId, payload, col, dictionary, present, k0, k1, output, at) {
  const out = arrayOf(output);
  const w = out.BYTES_PER_ELEMENT;
  const count = k1 - k0;
  switch (encodingId) {
    case ALP_ENCODING_ID:
      // (into wasm memory by address: the decoder may allocate, which would detach `out`)
      return decodeAlpInto(payload, present, k0, k1, out === output ? out.subarray(at, at + count) : { address: output.address + at * w, dtype: output.dtype });
    case 0: // PLAIN
      if (payload.length < present * w) throw `PLAIN values need ${present * w} bytes, the page has ${payload.length}`;
      return bytesOfOut(out, at, count).set(payload.subarray(k0 * w, k1 * w));
    case 9: {
      // BYTE_STREAM_SPLIT: byte k of every value in stream k, each stream `present` bytes long
      if (payload.length !== present * w) throw `BYTE_STREAM_SPLIT values need ${present * w} bytes, the page has ${payload.length}`;
      const to = bytesOfOut(out, at, count);
      for (let k = 0; k < w; k++) {
        const from = k * present + k0;
        for (let i = 0; i < count; i++) to[i * w + k] = payload[from + i];
      }
      return undefined;
    }
    case 2:
    case 8:
      return gatherDictionary(payload, dictionary, present, k0, k1, out, at);
    default:
      throw { unsupported: `encoding ${encodingName(encodingId)} is not supported for ${col.type}` };
  }
}

// PLAIN_DICTIONARY / RLE_DICTIONARY: a bit width byte, then hybrid-coded indices; each value
// copied from the dictionary as raw words.
function gatherDictionary(payload, dictionary, present, k0, k1, out, at) {
  if (!dictionary) throw 'dictionary-encoded values but the column chunk has no dictionary page before them';
  if (present === 0) return;
  if (payload.length < 1) throw 'dictionary indices are missing';
  const bw = payload[0];
  if (bw > 32) throw `dictionary index bit width ${bw} is over 32`;
  let indices;
  if (bw === 0) indices = new Uint8Array(present);
  else {
    indices = decodeRuns(payload, 1, payload.length, bw, present);
    if (typeof indices === 'string') throw `dictionary indices: ${indices}`;
  }
  const words = out.BYTES_PER_ELEMENT / 4;
  const dst = new Uint32Array(out.buffer, out.byteOffset + at * out.BYTES_PER_ELEMENT, (k1 - k0) * words);
  const src = new Uint32Array(dictionary.buffer, dictionary.byteOffset, dictionary.length * words);
  const n = dictionary.length;
  for (let i = k0; i < k1; i++) {
    const idx = indices[i];
    if (idx >= n) throw `dictionary index ${idx} at value ${i} is past the ${n} dictionary entries`;
    if (words === 1) dst[i - k0] = src[idx];
    else {
      dst[2 * (i - k0)] = src[2 * idx];
      dst[2 * (i - k0) + 1] = src[2 * idx + 1];
    }
  }
}

// The `dense` values at out[at ...] moved to the rows out[at, at + rows) that valid[v, v + rows)
// marks present, 0 at the others: from the end, a run of present rows at a time (nulls found by
// lastIndexOf), so that nothing is overwritten before it has moved.
function spreadNulls(out, valid, v, at, rows, dense) {
  const shift = at - v; // out's index of valid[i]: i + shift
  let j = at + dense; // end of the values not yet moved (in out)
  let r = v + rows; // end of the rows not yet filled (in valid)
  while (j < r + shift) {
    const z = valid.lastIndexOf(0, r - 1); // the last null before r (there is one: j < r + shift)
    const len = r - z - 1;
    if (len) {
      j -= len;
      out.copyWithin(z + 1 + shift, j, j + len);
    }
    let s = z;
    while (s > v && valid[s - 1] === 0) s--;
    out.fill(0, s + shift, z + 1 + shift);
    r = s;
  }
}

/**
 * Rows [a, b) of a data page into out[dst ...] and, for a page with nulls, validity()[dst ...]
 * (validity() is the column's validity, holding 1s where nothing was written: asked for only
 * when a page has nulls, so a column without any needs none). `out` is a typed array, or a
 * column's output in the ALP module's memory (readView): {address, dtype, values}, `values`
 * re-made after each wasm call. `inflated` is inflatePage's result; `scratch.validity(n)` lends a
 * Uint8Array of n bytes, the page's validity; where `scratch.wasm` (page-nulls.js' wasmPageScratch)
 * was reserved for the page's rows before `body` and `inflated` were made, the levels are read, and
 * an ALP page's nulls spread, in the ALP module. Returns the number of nulls written.
 * @throws {string | {unsupported: string}}
 */
export function decodePageInto(body, inflated, page, col, dictionary, a, b, out, validity, dst, scratch) {
  const split = splitPage(body, inflated, page, col);
  const rows = split.numValues;
  if (b > rows) throw `the page holds ${rows} values, ${b} were expected`;
  let present = rows;
  let k0 = a;
  let k1 = b;
  let pageValid = null; // the page's validity (a view of wasm memory on the wasm path: re-made after calls)
  let wasmValid = 0; // its address on the wasm path
  if (col.maxDef > 0) {
    const bitWidth = levelBitWidth(col.maxDef);
    // (the scratch was reserved before the page's bytes were: nothing is allocated here)
    if (scratch.wasm.fits(rows) && split.levels && bitWidth <= 8) {
      wasmValid = scratch.wasm.validityAt;
      const { bytes, start, end } = split.levels;
      present = validityInWasm(bytes.subarray(start, end), bitWidth, col.maxDef, rows, wasmValid);
      checkNullCount(page, rows, present);
      pageValid = wasmBytes(wasmValid, rows);
    } else {
      pageValid = scratch.validity(rows).fill(1, 0, rows);
      present = pageValidity(split, page, col, pageValid, 0);
    }
    if (a === 0 && b === rows) k1 = present;
    else {
      k0 = countOnes(pageValid, 0, a);
      k1 = k0 + countOnes(pageValid, a, b);
    }
  }
  const nulls = b - a - (k1 - k0);
  if (nulls > 0) validity().set(pageValid.subarray(a, b), dst);
  if (nulls > 0 && wasmValid !== 0 && page.encodingId === ALP_ENCODING_ID && (!ArrayBuffer.isView(out) || scratch.wasm.hasValues)) {
    spreadAlpInWasm(split.payload, present, k0, k1, out, dst, wasmValid + a, b - a, scratch.wasm);
    return nulls;
  }
  denseInto(page.encodingId, split.payload, col, dictionary, present, k0, k1, out, dst);
  if (nulls > 0) spreadNulls(arrayOf(out), wasmValid ? wasmBytes(wasmValid, rows) : pageValid, a, dst, b - a, k1 - k0);
  return nulls;
}

// A v2 page header's null count against the levels'.
function checkNullCount(page, rows, present) {
  if (page.type === 'DATA_PAGE_V2' && page.header.data_page_header_v2.num_nulls !== rows - present) {
    throw `the page header says ${page.header.data_page_header_v2.num_nulls} nulls, the definition levels hold ${rows - present}`;
  }
}

// An ALP page's non-null values [k0, k1) decoded in the ALP module and spread there over its
// `rows` rows (validity at `validAt`): straight into an output in that memory, or in the
// scratch's values and then copied to the output's rows at dst in one piece.
function spreadAlpInWasm(payload, present, k0, k1, out, dst, validAt, rows, wasm) {
  const Type = arrayOf(out).constructor;
  const w = Type.BYTES_PER_ELEMENT;
  const dtype = w === 4 ? 'f32' : 'f64';
  const inModule = !ArrayBuffer.isView(out);
  const address = inModule ? out.address + dst * w : wasm.valuesAt;
  decodeAlpInto(payload, present, k0, k1, { address, dtype });
  spreadInWasm(address, w, validAt, rows, k1 - k0);
  if (!inModule) out.set(new Type(getModule('alp').HEAPU8.buffer, address, rows), dst);
}

/**
 * A dictionary page's values (PLAIN), read by hyparquet.
 * @param {Uint8Array} inflated the page's decompressed bytes
 * @throws {string}
 */
export function readDictionary(inflated, page, col) {
  const n = page.header.dictionary_page_header.num_values;
  const w = col.type === 'FLOAT' ? 4 : 8;
  if (page.encodingId !== 0 && page.encodingId !== 2) throw `dictionary page encoding ${encodingName(page.encodingId)} (expected PLAIN)`;
  if (inflated.length < n * w) throw `the dictionary page claims ${n} values but has ${inflated.length} bytes`;
  const values = readPlain({ view: new DataView(inflated.buffer, inflated.byteOffset, inflated.byteLength), offset: 0 }, col.type, n, undefined);
  // A copy when it is a view: a decompressor may reuse its buffer for the next page.
  return values.buffer === inflated.buffer ? values.slice() : values;
}
