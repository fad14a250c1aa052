// One data page of a flat FLOAT / DOUBLE column, decoded into the caller's typed array: levels
// (hyparquet's RLE decoder after a bounds walk), then the values. ALP values go through
// numdecode's ALP decoder; PLAIN, BYTE_STREAM_SPLIT and dictionary indices through hyparquet.
// Values are copied as raw bits (NaN payloads and -0 survive).
import { readPlain } from 'hyparquet/src/plain.js';
import { byteStreamSplit } from 'hyparquet/src/encoding.js';
import { decodeRuns, levelBitWidth } from './levels.js';
import { decompress, encodingName, ALP_ENCODING_ID } from './pages.js';
import { decodeAlpValues } from './alp-page.js';

/**
 * Splits a data page into its definition levels and its (decompressed) value bytes.
 * @param {Uint8Array} body the page bytes after its header
 * @param {object} page {type, header}
 * @param {{codec: string, compressors: object, maxDef: number, chunkUncompressed?: number}} col
 * @returns {{numValues: number, defs: Uint8Array|null, nonNull: number, payload: Uint8Array}}
 * @throws {string}
 */
export function splitDataPage(body, page, col) {
  const { header } = page;
  const width = levelBitWidth(col.maxDef);
  let numValues;
  let defs = null;
  let payload;
  if (page.type === 'DATA_PAGE') {
    numValues = header.data_page_header.num_values;
    const bytes = decompress(body, header.uncompressed_page_size, col.codec, col.compressors, col.chunkUncompressed);
    let pos = 0;
    if (col.maxDef > 0) {
      if (bytes.length < 4) throw `the page has ${bytes.length} bytes, too few for its definition levels`;
      const len = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
      if (4 + len > bytes.length) throw `definition levels claim ${len} bytes but the page has ${bytes.length - 4}`;
      defs = decodeRuns(bytes, 4, 4 + len, width, numValues);
      if (typeof defs === 'string') throw `definition levels: ${defs}`;
      pos = 4 + len;
    }
    payload = bytes.subarray(pos);
  } else {
    const h = header.data_page_header_v2;
    numValues = h.num_values;
    const rl = h.repetition_levels_byte_length;
    const dl = h.definition_levels_byte_length;
    if (rl !== 0) throw `a flat column's page has ${rl} bytes of repetition levels`;
    if (h.num_rows !== numValues) throw `a flat column's page has ${h.num_rows} rows for ${numValues} values`;
    if (col.maxDef === 0 && dl !== 0) throw `a REQUIRED column's page has ${dl} bytes of definition levels`;
    // The values first: decompressing checks the page's stated size, which bounds num_values,
    // before the levels allocate one byte per value.
    const rest = body.subarray(rl + dl);
    const size = header.uncompressed_page_size - rl - dl;
    if (h.is_compressed === false) {
      if (rest.length !== size) throw `an uncompressed v2 page body of ${rest.length} bytes says it holds ${size}`;
      payload = rest;
    } else {
      payload = decompress(rest, size, col.codec, col.compressors, col.chunkUncompressed);
    }
    if (col.maxDef > 0) {
      defs = decodeRuns(body, 0, dl, width, numValues);
      if (typeof defs === 'string') throw `definition levels: ${defs}`;
    }
  }
  let nonNull = numValues;
  if (defs) {
    nonNull = 0;
    for (let i = 0; i < defs.length; i++) {
      const d = defs[i];
      if (d === col.maxDef) nonNull++;
      else if (d > col.maxDef) throw `definition level ${d} at value ${i} exceeds the column's maximum ${col.maxDef}`;
    }
    if (page.type === 'DATA_PAGE_V2' && header.data_page_header_v2.num_nulls !== numValues - nonNull) {
      throw `the page header says ${header.data_page_header_v2.num_nulls} nulls, the definition levels hold ${numValues - nonNull}`;
    }
  } else if (page.type === 'DATA_PAGE_V2' && header.data_page_header_v2.num_nulls !== 0) {
    throw `the page header says ${header.data_page_header_v2.num_nulls} nulls in a column without definition levels`;
  }
  return { numValues, defs, nonNull, payload };
}

function countPresent(defs, maxDef, end) {
  if (!defs) return end;
  let n = 0;
  for (let i = 0; i < end; i++) if (defs[i] === maxDef) n++;
  return n;
}

// Non-null values [k0, k1) of the page, as a typed array of the column's type.
function pageValues(encodingId, payload, col, dictionary, nonNull, k0, k1) {
  const w = col.dtype === 'f32' ? 4 : 8;
  const Type = col.dtype === 'f32' ? Float32Array : Float64Array;
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  switch (encodingId) {
    case ALP_ENCODING_ID:
      return decodeAlpValues(payload, col.dtype, nonNull, k0, k1);
    case 0: {
      // PLAIN
      if (payload.length < nonNull * w) throw `PLAIN values need ${nonNull * w} bytes, the page has ${payload.length}`;
      // a Float32Array / Float64Array view (or an aligned copy) of the bytes: bits are kept
      return readPlain({ view, offset: k0 * w }, col.type, k1 - k0, undefined);
    }
    case 9: {
      // BYTE_STREAM_SPLIT: the streams span all non-null values of the page
      if (payload.length !== nonNull * w) throw `BYTE_STREAM_SPLIT values need ${nonNull * w} bytes, the page has ${payload.length}`;
      return byteStreamSplit({ view, offset: 0 }, nonNull, col.type, undefined).subarray(k0, k1);
    }
    case 2:
    case 8: {
      // PLAIN_DICTIONARY / RLE_DICTIONARY: a bit width byte, then hybrid-coded indices
      if (!dictionary) throw 'dictionary-encoded values but the column chunk has no dictionary page before them';
      if (nonNull === 0) return new Type(0);
      if (payload.length < 1) throw 'dictionary indices are missing';
      const bw = payload[0];
      if (bw > 32) throw `dictionary index bit width ${bw} is over 32`;
      let indices;
      if (bw === 0) indices = new Uint8Array(nonNull);
      else {
        indices = decodeRuns(payload, 1, payload.length, bw, nonNull);
        if (typeof indices === 'string') throw `dictionary indices: ${indices}`;
      }
      const out = new Type(k1 - k0);
      gather(out, dictionary, indices, k0, k1, col.dtype);
      return out;
    }
    default:
      throw { unsupported: `encoding ${encodingName(encodingId)} is not supported for ${col.type}` };
  }
}

// out[i] = dictionary[indices[k0 + i]] bit for bit.
function gather(out, dictionary, indices, k0, k1, dtype) {
  const words = dtype === 'f32' ? 1 : 2;
  const dst = new Uint32Array(out.buffer, out.byteOffset, out.length * words);
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

/**
 * Decodes rows [a, b) of a data page into out[dst ...] and valid[dst ...].
 * @throws {string | {unsupported: string}}
 */
export function decodeFloatPage(body, page, col, dictionary, a, b, out, valid, dst) {
  const { defs, nonNull, payload } = splitDataPage(body, page, col);
  const k0 = countPresent(defs, col.maxDef, a);
  const k1 = k0 + (defs ? countPresent(defs.subarray(a, b), col.maxDef, b - a) : b - a);
  const values = pageValues(page.encodingId, payload, col, dictionary, nonNull, k0, k1);
  if (values.length !== k1 - k0) throw `decoding gave ${values.length} values where ${k1 - k0} were expected`;
  if (!defs || k1 - k0 === b - a) {
    out.set(values, dst);
    return;
  }
  const words = col.dtype === 'f32' ? 1 : 2;
  const to = new Uint32Array(out.buffer, out.byteOffset, out.length * words);
  const from = new Uint32Array(values.buffer, values.byteOffset, values.length * words);
  let j = 0;
  for (let r = a; r < b; r++) {
    const o = dst + r - a;
    if (defs[r] === col.maxDef) {
      if (words === 1) to[o] = from[j];
      else {
        to[2 * o] = from[2 * j];
        to[2 * o + 1] = from[2 * j + 1];
      }
      j++;
    } else valid[o] = 0;
  }
}

/**
 * A dictionary page's values (PLAIN), decompressed and read by hyparquet.
 * @throws {string}
 */
export function decodeDictionaryPage(body, page, col) {
  const { header } = page;
  const n = header.dictionary_page_header.num_values;
  const bytes = decompress(body, header.uncompressed_page_size, col.codec, col.compressors, col.chunkUncompressed);
  const w = col.dtype === 'f32' ? 4 : 8;
  if (page.encodingId !== 0 && page.encodingId !== 2) throw `dictionary page encoding ${encodingName(page.encodingId)} (expected PLAIN)`;
  if (bytes.length < n * w) throw `the dictionary page claims ${n} values but has ${bytes.length} bytes`;
  const values = readPlain({ view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 }, col.type, n, undefined);
  // an aligned view still shares the page buffer, which is fine: pages are not reused
  return values;
}
