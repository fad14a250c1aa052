// Builds Parquet files in memory with the shapes the parquet-cpp corpus lacks: nulls, DATA_PAGE_V2,
// several pages per chunk and row groups, every codec hyparquet-compressors reads, a dictionary
// page followed by ALP pages, PLAIN / BYTE_STREAM_SPLIT pages beside ALP ones, both ALP layouts,
// OffsetIndex. Thrift, levels, footer and snappy come from hyparquet-writer; ALP page bodies from
// numdecode's ALP encoder. Expected values in the tests are the values passed in here, never what
// the reader under test returns.
import zlib from 'node:zlib';
import { ByteWriter } from 'hyparquet-writer';
import { serializeTCompactProtocol } from 'hyparquet-writer/src/thrift.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { snappyCompress } from 'hyparquet-writer/src/snappy.js';
import { alp } from '../../../js/index.js';

const CODEC_IDS = { UNCOMPRESSED: 0, SNAPPY: 1, GZIP: 2, BROTLI: 4, ZSTD: 6, LZ4_RAW: 7 };
const ENCODING_IDS = { PLAIN: 0, RLE: 3, RLE_DICTIONARY: 8, BSS: 9, ALP: 10 };

// A zstd frame of raw (stored) blocks: valid zstd that any decoder must read; Node 20 has no zstd encoder.
function zstdStored(bytes) {
  const out = [0x28, 0xb5, 0x2f, 0xfd, 0xa0, ...u32(bytes.length)];
  const MAX = 128 * 1024;
  let pos = 0;
  do {
    const n = Math.min(MAX, bytes.length - pos);
    const last = pos + n >= bytes.length ? 1 : 0;
    const h = last | (0 << 1) | (n << 3);
    out.push(h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, ...bytes.subarray(pos, pos + n));
    pos += n;
  } while (pos < bytes.length);
  return Uint8Array.from(out);
}

// An LZ4 block of one literal-only sequence: valid LZ4_RAW; no LZ4 encoder is installed.
function lz4Literals(bytes) {
  const out = [];
  const n = bytes.length;
  out.push(Math.min(n, 15) << 4);
  if (n >= 15) {
    let rest = n - 15;
    while (rest >= 255) {
      out.push(255);
      rest -= 255;
    }
    out.push(rest);
  }
  return Uint8Array.from([...out, ...bytes]);
}

function u32(n) {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
}

export function compress(codec, bytes) {
  switch (codec) {
    case 'UNCOMPRESSED':
      return bytes;
    case 'SNAPPY':
      return snappyCompress(bytes);
    case 'GZIP':
      return new Uint8Array(zlib.gzipSync(bytes));
    case 'BROTLI':
      return new Uint8Array(zlib.brotliCompressSync(bytes));
    case 'ZSTD':
      return zstdStored(bytes);
    case 'LZ4_RAW':
      return lz4Literals(bytes);
    default:
      throw new Error(`no compressor for ${codec}`);
  }
}

function concat(parts) {
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function thrift(obj) {
  const w = new ByteWriter();
  serializeTCompactProtocol(w, obj);
  return w.getBytes();
}

function rle(values, bitWidth) {
  const w = new ByteWriter();
  writeRleBitPackedHybrid(w, values, bitWidth);
  return w.getBytes();
}

function rawBytes(typed) {
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength).slice();
}

function byteStreamSplit(typed) {
  const bytes = rawBytes(typed);
  const w = typed.BYTES_PER_ELEMENT;
  const n = typed.length;
  const out = new Uint8Array(bytes.length);
  for (let k = 0; k < w; k++) for (let i = 0; i < n; i++) out[k * n + i] = bytes[i * w + k];
  return out;
}

// Value bytes of one page's non-null values in `encoding`.
function encodeValues(encoding, present, page, dictIndex) {
  switch (encoding) {
    case 'ALP':
      return alp.encode(present, { layout: page.layout ?? 'merged' });
    case 'PLAIN':
      return rawBytes(present);
    case 'BSS':
      return byteStreamSplit(present);
    case 'RLE_DICTIONARY': {
      const bw = Math.max(1, 32 - Math.clz32(dictIndex.size - 1));
      const idx = Array.from(present, (_, i) => dictIndex.get(bitsKey(present, i)));
      return concat([Uint8Array.of(bw), rle(idx, bw)]);
    }
    default:
      throw new Error(`encoding ${encoding}`);
  }
}

function bitsKey(typed, i) {
  const u = new Uint32Array(typed.buffer, typed.byteOffset + i * typed.BYTES_PER_ELEMENT, typed.BYTES_PER_ELEMENT / 4);
  return u.length === 1 ? u[0] : `${u[0]}:${u[1]}`;
}

/**
 * One data page: header + body.
 * rows: {values: Float32Array|Float64Array (0 at nulls), valid: Uint8Array|null}
 */
function dataPage(col, page, values, valid, codec, dictIndex, compress) {
  const n = values.length;
  const Type = values.constructor;
  const presentIdx = [];
  for (let i = 0; i < n; i++) if (!valid || valid[i]) presentIdx.push(i);
  const present = new Type(presentIdx.length);
  const pw = new Uint32Array(present.buffer);
  const vw = new Uint32Array(values.buffer, values.byteOffset, values.length * (values.BYTES_PER_ELEMENT / 4));
  const words = values.BYTES_PER_ELEMENT / 4;
  presentIdx.forEach((src, j) => {
    for (let k = 0; k < words; k++) pw[j * words + k] = vw[src * words + k];
  });
  const encoding = page.encoding ?? 'ALP';
  const body = encodeValues(encoding, present, page, dictIndex);
  const defs = col.required ? null : rle(Array.from({ length: n }, (_, i) => (valid && !valid[i] ? 0 : 1)), 1);
  const encodingId = ENCODING_IDS[encoding];
  if ((page.kind ?? 'v1') === 'v1') {
    const plain = concat(defs ? [Uint8Array.from(u32(defs.length)), defs, body] : [body]);
    const packed = compress(codec, plain);
    const header = thrift({
      field_1: 0,
      field_2: plain.length,
      field_3: packed.length,
      field_5: { field_1: n, field_2: encodingId, field_3: 3, field_4: 3 },
    });
    return { header, body: packed, uncompressed: plain.length };
  }
  const packed = page.uncompressedBody ? body : compress(codec, body);
  const levels = defs ?? new Uint8Array(0);
  const header = thrift({
    field_1: 3,
    field_2: levels.length + body.length,
    field_3: levels.length + packed.length,
    field_8: {
      field_1: n,
      field_2: n - presentIdx.length,
      field_3: n,
      field_4: encodingId,
      field_5: levels.length,
      field_6: 0,
      field_7: page.uncompressedBody ? false : undefined,
    },
  });
  return { header, body: concat([levels, packed]), uncompressed: levels.length + body.length };
}

/**
 * @param {{columns: Array<{name: string, type: 'FLOAT'|'DOUBLE'|'INT32', required?: boolean,
 *   values: Float32Array|Float64Array|Int32Array, valid?: Uint8Array}>,
 *   rowGroups: number[], codec?: string, offsetIndex?: boolean,
 *   pages?: (column: number, group: number) => Array<{rows: number, kind?: 'v1'|'v2', encoding?: string, layout?: string}>,
 *   dictionary?: (column: number, group: number) => boolean,
 *   compress?: (codec: string, bytes: Uint8Array) => Uint8Array}} spec
 *   compress: a real compressor to use instead of the stand-ins above (the benchmark's zstd).
 * @returns {Uint8Array}
 */
export function buildParquet(spec) {
  const codec = spec.codec ?? 'UNCOMPRESSED';
  const pack = spec.compress ?? compress;
  const parts = [new TextEncoder().encode('PAR1')];
  let offset = 4;
  const rowGroups = [];
  const pageIndexes = [];
  let groupStart = 0;
  spec.rowGroups.forEach((groupRows, g) => {
    const columns = [];
    for (const [c, col] of spec.columns.entries()) {
      if (groupRows === 0) {
        // as parquet-cpp writes an empty table's row group: no pages, the chunk at offset 0, size 0
        const meta = { type: col.type, encodings: ['RLE'], path_in_schema: [col.name], codec, num_values: 0n, total_uncompressed_size: 0n, total_compressed_size: 0n, data_page_offset: 0n };
        columns.push({ file_offset: 0n, meta_data: meta });
        continue;
      }
      const chunkStart = offset;
      let uncompressedTotal = 0;
      const locations = [];
      const values = col.values.subarray(groupStart, groupStart + groupRows);
      const valid = col.valid ? col.valid.subarray(groupStart, groupStart + groupRows) : null;
      let dictionaryOffset;
      const encodings = new Set(['RLE']);
      if (col.type === 'INT32') {
        // a plain INT32 column: one v1 PLAIN page (nulls allowed)
        const present = Int32Array.from(values.filter((_, i) => !valid || valid[i]));
        const defs = col.required ? null : rle(Array.from(values, (_, i) => (valid && !valid[i] ? 0 : 1)), 1);
        const plain = concat(defs ? [Uint8Array.from(u32(defs.length)), defs, rawBytes(present)] : [rawBytes(present)]);
        const packed = pack(codec, plain);
        const header = thrift({ field_1: 0, field_2: plain.length, field_3: packed.length, field_5: { field_1: groupRows, field_2: 0, field_3: 3, field_4: 3 } });
        parts.push(header, packed);
        locations.push({ offset: BigInt(offset), compressed_page_size: header.length + packed.length, first_row_index: 0n });
        offset += header.length + packed.length;
        uncompressedTotal += header.length + plain.length;
        encodings.add('PLAIN');
      } else {
        const pages = spec.pages?.(c, g) ?? [{ rows: groupRows }];
        if (pages.reduce((s, p) => s + p.rows, 0) !== groupRows) throw new Error('page rows must add up to the group');
        let dictIndex;
        if (spec.dictionary?.(c, g)) {
          // distinct non-null values by bits, in first-seen order
          dictIndex = new Map();
          const entries = [];
          for (let i = 0; i < values.length; i++) {
            if (valid && !valid[i]) continue;
            const key = bitsKey(values, i);
            if (!dictIndex.has(key)) {
              dictIndex.set(key, entries.length);
              entries.push(i);
            }
          }
          const dict = new values.constructor(entries.length);
          entries.forEach((src, j) => new Uint8Array(dict.buffer).set(new Uint8Array(values.buffer, values.byteOffset + src * values.BYTES_PER_ELEMENT, values.BYTES_PER_ELEMENT), j * values.BYTES_PER_ELEMENT));
          const plain = rawBytes(dict);
          const packed = pack(codec, plain);
          const header = thrift({ field_1: 2, field_2: plain.length, field_3: packed.length, field_7: { field_1: entries.length, field_2: 0 } });
          dictionaryOffset = offset;
          parts.push(header, packed);
          offset += header.length + packed.length;
          uncompressedTotal += header.length + plain.length;
          encodings.add('PLAIN');
        }
        let row = 0;
        for (const page of pages) {
          const pv = values.subarray(row, row + page.rows);
          const pvalid = valid ? valid.subarray(row, row + page.rows) : null;
          const { header, body, uncompressed } = dataPage(col, page, pv, pvalid, codec, dictIndex, pack);
          parts.push(header, body);
          locations.push({ offset: BigInt(offset), compressed_page_size: header.length + body.length, first_row_index: BigInt(row) });
          offset += header.length + body.length;
          uncompressedTotal += header.length + uncompressed;
          if (page.encoding === 'PLAIN') encodings.add('PLAIN');
          if (page.encoding === 'BSS') encodings.add('BYTE_STREAM_SPLIT');
          if (page.encoding === 'RLE_DICTIONARY') encodings.add('RLE_DICTIONARY');
          row += page.rows;
        }
      }
      const chunk = {
        file_offset: BigInt(chunkStart),
        meta_data: {
          type: col.type,
          encodings: [...encodings],
          path_in_schema: [col.name],
          codec,
          num_values: BigInt(groupRows),
          total_uncompressed_size: BigInt(uncompressedTotal),
          total_compressed_size: BigInt(offset - chunkStart),
          data_page_offset: BigInt(dictionaryOffset === undefined ? chunkStart : locations[0].offset),
          dictionary_page_offset: dictionaryOffset === undefined ? undefined : BigInt(dictionaryOffset),
        },
      };
      columns.push(chunk);
      pageIndexes.push({ chunk, locations });
    }
    rowGroups.push({
      columns,
      total_byte_size: BigInt(columns.reduce((s, c) => s + Number(c.meta_data.total_uncompressed_size), 0)),
      num_rows: BigInt(groupRows),
    });
    groupStart += groupRows;
  });
  if (spec.offsetIndex) {
    for (const { chunk, locations } of pageIndexes) {
      const bytes = thrift({ field_1: locations.map((l) => ({ field_1: l.offset, field_2: l.compressed_page_size, field_3: l.first_row_index })) });
      chunk.offset_index_offset = BigInt(offset);
      chunk.offset_index_length = bytes.length;
      parts.push(bytes);
      offset += bytes.length;
    }
  }
  const metadata = {
    version: 2,
    schema: [
      { name: 'schema', num_children: spec.columns.length },
      ...spec.columns.map((c) => ({ name: c.name, type: c.type, repetition_type: c.required ? 'REQUIRED' : 'OPTIONAL' })),
    ],
    num_rows: BigInt(groupStart),
    row_groups: rowGroups,
    created_by: 'numdecode tests/js/parquet/parquet-build.js',
  };
  const w = new ByteWriter();
  writeMetadata(w, metadata);
  parts.push(w.getBytes(), new TextEncoder().encode('PAR1'));
  return concat(parts);
}

/**
 * A file with one OPTIONAL struct column `name` whose OPTIONAL FLOAT / DOUBLE leaves are ALP pages
 * (one v1 page per leaf, one row group): definition level 0 = the struct is null, 1 = the leaf
 * is null, 2 = a value (`def` per row; `values` hold 0 where there is none).
 * @param {{name: string, def: Uint8Array, leaves: Array<{name: string, type: 'FLOAT'|'DOUBLE', values: Float32Array|Float64Array}>}} spec
 */
export function buildStructParquet({ name, def, leaves }) {
  const n = def.length;
  const parts = [new TextEncoder().encode('PAR1')];
  let offset = 4;
  const columns = leaves.map((leaf) => {
    const present = leaf.values.filter((_, i) => def[i] === 2);
    const levels = rle(Array.from(def), 2);
    const plain = concat([Uint8Array.from(u32(levels.length)), levels, alp.encode(present, { layout: 'merged' })]);
    const header = thrift({ field_1: 0, field_2: plain.length, field_3: plain.length, field_5: { field_1: n, field_2: ENCODING_IDS.ALP, field_3: 3, field_4: 3 } });
    const start = offset;
    parts.push(header, plain);
    offset += header.length + plain.length;
    return chunkOf({ type: leaf.type, path: [name, leaf.name], codec: 'UNCOMPRESSED', values: n, start, end: offset, uncompressed: offset - start });
  });
  const schema = [
    { name: 'schema', num_children: 1 },
    { name, repetition_type: 'OPTIONAL', num_children: leaves.length },
    ...leaves.map((l) => ({ name: l.name, type: l.type, repetition_type: 'OPTIONAL' })),
  ];
  return withFooter(parts, schema, n, columns, offset);
}

// A column chunk's metadata: its pages at [start, end) of the file.
function chunkOf({ type, path, codec, values, start, end, uncompressed, encodings = ['RLE'] }) {
  return {
    file_offset: BigInt(start),
    meta_data: {
      type,
      encodings,
      path_in_schema: path,
      codec,
      num_values: BigInt(values),
      total_uncompressed_size: BigInt(uncompressed),
      total_compressed_size: BigInt(end - start),
      data_page_offset: BigInt(start),
    },
  };
}

// The file: `parts` (the magic and the pages, `end` bytes) then the footer of one row group.
function withFooter(parts, schema, rows, columns, end) {
  const metadata = {
    version: 2,
    schema,
    num_rows: BigInt(rows),
    row_groups: [{ columns, total_byte_size: BigInt(end - 4), num_rows: BigInt(rows) }],
    created_by: 'numdecode tests/js/parquet/parquet-build.js',
  };
  const w = new ByteWriter();
  writeMetadata(w, metadata);
  parts.push(w.getBytes(), new TextEncoder().encode('PAR1'));
  return concat(parts);
}

/**
 * A file with one list column `name` (OPTIONAL group, LIST) of OPTIONAL DOUBLE elements, the
 * three-level layout parquet-cpp writes (name.list.element), one row group: rows are arrays of
 * numbers or nulls, or null (a null list). Definition levels: 0 null list, 1 empty list, 2 null
 * element, 3 value; repetition level 0 starts a row. Pages of `pageRows` rows, v1 and v2 in turn,
 * values ALP (`encoding`: 'ALP') or PLAIN.
 */
export function buildListParquet({ name, rows, pageRows, encoding = 'ALP', codec = 'UNCOMPRESSED', compress: pack = compress }) {
  const parts = [new TextEncoder().encode('PAR1')];
  let offset = 4;
  const start = offset;
  let values = 0;
  let uncompressedTotal = 0;
  for (let first = 0, k = 0; first < rows.length; first += pageRows, k++) {
    const rep = [];
    const def = [];
    const present = [];
    for (const row of rows.slice(first, first + pageRows)) {
      if (row === null || row.length === 0) {
        rep.push(0);
        def.push(row === null ? 0 : 1);
        continue;
      }
      row.forEach((v, i) => {
        rep.push(i === 0 ? 0 : 1);
        def.push(v === null ? 2 : 3);
        if (v !== null) present.push(v);
      });
    }
    const n = rep.length;
    values += n;
    const body = encoding === 'ALP' ? alp.encode(Float64Array.from(present), { layout: 'merged' }) : rawBytes(Float64Array.from(present));
    const reps = rle(rep, 1);
    const defs = rle(def, 2);
    const id = ENCODING_IDS[encoding];
    let header;
    let bytes;
    let plainSize;
    if (k % 2 === 0) {
      const plain = concat([Uint8Array.from(u32(reps.length)), reps, Uint8Array.from(u32(defs.length)), defs, body]);
      bytes = pack(codec, plain);
      plainSize = plain.length;
      header = thrift({ field_1: 0, field_2: plain.length, field_3: bytes.length, field_5: { field_1: n, field_2: id, field_3: 3, field_4: 3 } });
    } else {
      const packed = pack(codec, body);
      bytes = concat([reps, defs, packed]);
      plainSize = reps.length + defs.length + body.length;
      const nulls = def.filter((d) => d < 3).length;
      header = thrift({
        field_1: 3,
        field_2: plainSize,
        field_3: bytes.length,
        field_8: { field_1: n, field_2: nulls, field_3: Math.min(pageRows, rows.length - first), field_4: id, field_5: defs.length, field_6: reps.length },
      });
    }
    parts.push(header, bytes);
    offset += header.length + bytes.length;
    uncompressedTotal += header.length + plainSize;
  }
  const chunk = chunkOf({
    type: 'DOUBLE',
    path: [name, 'list', 'element'],
    codec,
    values,
    start,
    end: offset,
    uncompressed: uncompressedTotal,
    encodings: ['RLE', encoding === 'ALP' ? 'PLAIN' : encoding],
  });
  const schema = [
    { name: 'schema', num_children: 1 },
    { name, repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST' },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    { name: 'element', type: 'DOUBLE', repetition_type: 'OPTIONAL' },
  ];
  return withFooter(parts, schema, rows.length, [chunk], offset);
}
