// Page headers of a column chunk. hyparquet parses the Thrift header; this file adds what a reader
// needs before trusting it: the raw encoding id (hyparquet has no name for ALP = 10, so it reports
// `undefined`), and bounds on every size and count the header claims.
import { parquetHeader } from 'hyparquet/src/column.js';
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';

export const ALP_ENCODING_ID = 10;

// Encoding ids as the Parquet format numbers them (hyparquet's list stops at 9).
const ENCODING_NAMES = [
  'PLAIN', 'GROUP_VAR_INT', 'PLAIN_DICTIONARY', 'RLE', 'BIT_PACKED', 'DELTA_BINARY_PACKED',
  'DELTA_LENGTH_BYTE_ARRAY', 'DELTA_BYTE_ARRAY', 'RLE_DICTIONARY', 'BYTE_STREAM_SPLIT', 'ALP',
];

export function encodingName(id) {
  return ENCODING_NAMES[id] ?? `UNKNOWN(${id})`;
}

// A data page may expand to at most this many values per byte of page, plus a flat allowance:
// ALP needs about 13 bytes per 1024 values, dictionary indices of width 0 and runs of nulls
// almost nothing (parquet-cpp and parquet-java cap pages at 20000 rows; a writer that pages by
// bytes may put a million nulls in one page). Anything beyond is not earned.
const VALUES_PER_BYTE = 256;
const VALUES_FLAT = 1 << 20;
// Decompressed / compressed: gzip tops out near 1032, snappy near 21, LZ4 near 255.
const MAX_RATIO = { SNAPPY: 32, GZIP: 1100, LZ4: 256, LZ4_RAW: 256 };
const MAX_PAGE_BYTES = 1 << 30;

// The codecs numdecode decompresses (codecs.js has a loader for each compressed one).
const CODECS = new Set(['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'ZSTD', 'LZ4', 'LZ4_RAW']);

/** True when numdecode can decompress pages of this codec. */
export function knownCodec(codec) {
  return CODECS.has(codec);
}

export function maxValuesFor(pageBytes) {
  return VALUES_FLAT + pageBytes * VALUES_PER_BYTE;
}

/**
 * Reads the page header at bytes[offset]; `base` is the file offset of bytes[0], for messages
 * (they give the page's byte in the file, not in the column chunk).
 * @returns {{header: object, encodingId: number|undefined, dataStart: number, dataEnd: number, type: string}}
 * @throws {string} a message when the header is unreadable or claims sizes past `end`
 */
export function readPageHeaderAt(bytes, offset, end, base = 0) {
  const at = `byte ${base + offset} of the file`;
  const view = new DataView(bytes.buffer, bytes.byteOffset, end);
  let raw;
  let header;
  const reader = { view, offset };
  try {
    raw = deserializeTCompactProtocol({ view, offset });
    header = parquetHeader(reader);
  } catch (err) {
    throw `page header at ${at} is unreadable (${err?.message ?? err})`;
  }
  const type = header.type;
  if (type !== 'DATA_PAGE' && type !== 'DATA_PAGE_V2' && type !== 'DICTIONARY_PAGE' && type !== 'INDEX_PAGE') {
    throw `page header at ${at} has page type ${raw.field_1}`;
  }
  const c = header.compressed_page_size;
  const u = header.uncompressed_page_size;
  if (!Number.isSafeInteger(c) || c < 0 || !Number.isSafeInteger(u) || u < 0) {
    throw `page header at ${at} has sizes ${c} / ${u}`;
  }
  const dataStart = reader.offset;
  if (dataStart + c > end) {
    throw `page at ${at} claims ${c} bytes but only ${end - dataStart} remain in the column chunk`;
  }
  let encodingId;
  if (type === 'DATA_PAGE') {
    if (!raw.field_5) throw `data page at ${at} has no data_page_header`;
    encodingId = raw.field_5.field_2;
    checkCount(header.data_page_header.num_values, u, at);
  } else if (type === 'DATA_PAGE_V2') {
    const h = header.data_page_header_v2;
    if (!h) throw `data page v2 at ${at} has no data_page_header_v2`;
    encodingId = raw.field_8.field_4;
    checkCount(h.num_values, u, at);
    if (!Number.isSafeInteger(h.num_rows) || h.num_rows < 0 || h.num_rows > h.num_values) {
      throw `data page v2 at ${at} has num_rows ${h.num_rows} for ${h.num_values} values`;
    }
    if (!Number.isSafeInteger(h.num_nulls) || h.num_nulls < 0 || h.num_nulls > h.num_values) {
      throw `data page v2 at ${at} has num_nulls ${h.num_nulls} for ${h.num_values} values`;
    }
    const levels = h.definition_levels_byte_length + h.repetition_levels_byte_length;
    if (!(h.definition_levels_byte_length >= 0) || !(h.repetition_levels_byte_length >= 0) || levels > c || levels > u) {
      throw `data page v2 at ${at} has level lengths ${h.repetition_levels_byte_length} + ${h.definition_levels_byte_length} past its ${Math.min(c, u)} bytes`;
    }
  } else if (type === 'DICTIONARY_PAGE') {
    if (!raw.field_7) throw `dictionary page at ${at} has no dictionary_page_header`;
    encodingId = raw.field_7.field_2;
    const n = header.dictionary_page_header.num_values;
    if (!Number.isSafeInteger(n) || n < 0 || n > u) throw `dictionary page at ${at} claims ${n} values in ${u} bytes`;
  }
  return { header, type, encodingId, dataStart, dataEnd: dataStart + c };
}

function checkCount(n, bytes, at) {
  if (!Number.isSafeInteger(n) || n < 0 || n > maxValuesFor(bytes)) {
    throw `data page at ${at} claims ${n} values in ${bytes} bytes`;
  }
}

/**
 * Checks the size a page header claims against the codec's largest ratio (and the chunk's stated
 * total) before anything is allocated, then decompresses with `inflate` (from codecs.js; null for
 * UNCOMPRESSED). May return a promise (the browser's gunzip is a stream).
 * @throws {string}
 */
export function decompress(body, uncompressedSize, codec, inflate, chunkUncompressed) {
  if (codec === 'UNCOMPRESSED') {
    if (body.length !== uncompressedSize) {
      throw `an uncompressed page of ${body.length} bytes says it holds ${uncompressedSize}`;
    }
    return body;
  }
  const ratio = MAX_RATIO[codec];
  if (ratio !== undefined && uncompressedSize > body.length * ratio + 64) {
    throw `${uncompressedSize} decompressed bytes from ${body.length} is beyond what ${codec} can give`;
  }
  // ZSTD and BROTLI can expand by far more; their bound is the chunk's stated total, and a page
  // over 1 GiB is refused outright (Parquet page sizes are i32; no writer comes near).
  if (uncompressedSize > MAX_PAGE_BYTES) throw `a page of ${uncompressedSize} decompressed bytes is over the 1 GiB limit`;
  if (chunkUncompressed !== undefined && uncompressedSize > chunkUncompressed) {
    throw `the page says it decompresses to ${uncompressedSize} bytes, more than the chunk's ${chunkUncompressed}`;
  }
  const failed = (err) => {
    throw `${codec} decompression failed (${err?.message ?? err})`;
  };
  const checked = (out) => {
    if (out.length !== uncompressedSize) throw `${codec} decompression gave ${out.length} bytes, the page header says ${uncompressedSize}`;
    return out;
  };
  let out;
  try {
    out = inflate(body, uncompressedSize);
  } catch (err) {
    failed(err);
  }
  return typeof out?.then === 'function' ? out.then(checked, failed) : checked(out);
}
