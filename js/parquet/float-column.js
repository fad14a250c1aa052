// A flat FLOAT / DOUBLE column over the selected row groups: which bytes to fetch (the whole
// column chunk, or with an OffsetIndex only the pages holding the selected rows), the page walk,
// and the decode into one typed array plus a validity mask.
import { readOffsetIndex } from 'hyparquet/src/indexes.js';
import { ParquetError, CODES } from '../errors.js';
import { readPageHeaderAt, encodingName, ALP_ENCODING_ID } from './pages.js';
import { decodeFloatPage, decodeDictionaryPage, splitDataPage } from './float-page.js';
import { alpValueCount } from './alp-page.js';

/** A ParquetError naming file, column, row group and (when known) data page. */
export function columnError(where, message, cause) {
  const { file, column, rowGroup, page } = where;
  const parts = [`column ${column}`];
  if (rowGroup !== undefined) parts.push(`row group ${rowGroup}`);
  if (page !== undefined) parts.push(typeof page === 'number' ? `page ${page}` : page);
  let code = CODES.BAD_DATA;
  let text = message;
  if (message && typeof message === 'object' && message.unsupported) {
    code = CODES.UNSUPPORTED;
    text = message.unsupported;
  } else if (typeof message !== 'string') {
    text = String(message?.message ?? message);
    cause ??= message;
  }
  return new ParquetError(`parquet: ${file}: ${parts.join(', ')}: ${text}`, {
    code,
    cause,
    file,
    column,
    rowGroup,
    page: typeof page === 'number' ? page : undefined,
  });
}

/** Byte range [start, end) of a column chunk, checked against the file. */
export function chunkRange(chunk, fileSize) {
  const meta = chunk.meta_data;
  if (!meta) throw 'the column chunk has no metadata (an external file_path is not supported)';
  const data = Number(meta.data_page_offset);
  const dict = meta.dictionary_page_offset === undefined ? undefined : Number(meta.dictionary_page_offset);
  // some writers store dictionary_page_offset 0 for "none"
  const start = dict !== undefined && dict > 0 && dict < data ? dict : data;
  const length = Number(meta.total_compressed_size);
  if (!Number.isSafeInteger(start) || start < 4 || !Number.isSafeInteger(length) || length <= 0 || start + length > fileSize - 8) {
    throw `the column chunk's byte range [${start}, ${start + length}) is outside the file's ${fileSize} bytes`;
  }
  return { start, end: start + length };
}

// Walks the page headers in bytes[0, bytes.length); `base` is the file offset of bytes[0].
function walkPages(bytes, base, firstRow, pages, where) {
  let offset = 0;
  let row = firstRow;
  while (offset < bytes.length) {
    const pageNumber = pages.data.length;
    let info;
    try {
      info = readPageHeaderAt(bytes, offset, bytes.length);
    } catch (msg) {
      throw columnError({ ...where, page: pageNumber }, msg);
    }
    if (info.type === 'DICTIONARY_PAGE') {
      if (pages.data.length) throw columnError({ ...where, page: pageNumber }, 'a dictionary page after data pages');
      pages.dictionary = { bytes, ...info, fileOffset: base + offset };
    } else if (info.type === 'DATA_PAGE' || info.type === 'DATA_PAGE_V2') {
      const rows = info.type === 'DATA_PAGE' ? info.header.data_page_header.num_values : info.header.data_page_header_v2.num_rows;
      pages.data.push({ bytes, ...info, fileOffset: base + offset, rowStart: row, rows });
      row += rows;
    }
    offset = info.dataEnd;
  }
  return row;
}

// Page locations from the OffsetIndex, checked against the chunk and the group's rows.
async function pageLocations(file, chunk, range, groupRows) {
  const offset = Number(chunk.offset_index_offset);
  const length = chunk.offset_index_length;
  const size = await file.size();
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || length <= 0 || offset < 4 || offset + length > size) {
    throw `the OffsetIndex range [${offset}, ${offset + length}) is outside the file`;
  }
  const bytes = await file.read(offset, offset + length);
  let index;
  try {
    index = readOffsetIndex({ view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 });
  } catch (err) {
    throw `the OffsetIndex is unreadable (${err?.message ?? err})`;
  }
  const locs = index.page_locations ?? [];
  if (!locs.length) throw 'the OffsetIndex lists no pages';
  let prevEnd = range.start;
  let prevRow = -1;
  const out = [];
  for (let i = 0; i < locs.length; i++) {
    const at = Number(locs[i].offset);
    const len = locs[i].compressed_page_size;
    const row = Number(locs[i].first_row_index);
    if (!Number.isSafeInteger(at) || !Number.isSafeInteger(len) || len <= 0 || at < prevEnd || at + len > range.end) {
      throw `OffsetIndex page ${i} at [${at}, ${at + len}) is outside the column chunk [${range.start}, ${range.end}) or overlaps the page before`;
    }
    if (!Number.isSafeInteger(row) || row <= prevRow || row >= groupRows || (i === 0 && row !== 0)) {
      throw `OffsetIndex page ${i} starts at row ${row}, out of order for a row group of ${groupRows} rows`;
    }
    out.push({ start: at, end: at + len, rowStart: row });
    prevEnd = at + len;
    prevRow = row;
  }
  for (let i = 0; i < out.length; i++) out[i].rows = (i + 1 < out.length ? out[i + 1].rowStart : groupRows) - out[i].rowStart;
  return out;
}

// A partial selection in a chunk with an OffsetIndex fetches only the pages it needs.
function usesOffsetIndex(chunk, group) {
  const partial = group.selStart > 0 || group.selEnd < group.rows;
  return partial && chunk.offset_index_offset !== undefined && Boolean(chunk.offset_index_length);
}

/**
 * Starts one readRanges over every whole column chunk the columns will read, so that adjacent
 * chunks (the columns of a row group) share requests. Returns "start:end" -> Promise<bytes>;
 * chunks whose range is bad are left out (their reader reports them).
 */
export function prefetchChunks(ctx, columns, groups) {
  const ranges = [];
  for (const column of columns) {
    for (const group of groups) {
      const chunk = ctx.metadata.row_groups[group.index].columns[column.leafIndex];
      if (!chunk || usesOffsetIndex(chunk, group)) continue;
      try {
        const { start, end } = chunkRange(chunk, ctx.fileSize);
        ranges.push([start, end]);
      } catch {
        // reported with its column and row group when the column is read
      }
    }
  }
  const prefetched = new Map();
  if (ranges.length < 2) return prefetched;
  const all = ctx.file.readRanges(ranges);
  ranges.forEach(([s, e], i) => {
    const part = all.then((parts) => parts[i]);
    part.catch(() => {}); // a failure surfaces through the chunk that awaits it, not as unhandled
    prefetched.set(`${s}:${e}`, part);
  });
  return prefetched;
}

/**
 * Fetches and walks the pages of one column chunk that hold rows [selStart, selEnd) of the group.
 * @returns {{dictionary: object|null, data: object[]}}
 */
async function chunkPages(file, fileSize, chunk, group, where, prefetched) {
  let range;
  try {
    range = chunkRange(chunk, fileSize);
  } catch (msg) {
    throw columnError(where, msg);
  }
  const pages = { dictionary: null, data: [] };
  if (usesOffsetIndex(chunk, group)) {
    let locs;
    try {
      locs = await pageLocations(file, chunk, range, group.rows);
    } catch (msg) {
      if (typeof msg !== 'string') throw msg;
      throw columnError(where, msg);
    }
    const wanted = locs.map((l, i) => ({ ...l, index: i })).filter((l) => l.rowStart < group.selEnd && l.rowStart + l.rows > group.selStart);
    const ranges = [];
    if (locs[0].start > range.start) ranges.push([range.start, locs[0].start]); // dictionary page
    for (const l of wanted) ranges.push([l.start, l.end]);
    const parts = await file.readRanges(ranges);
    let k = 0;
    if (locs[0].start > range.start) {
      const prefix = parts[k++];
      walkPages(prefix, range.start, 0, pages, where);
      if (pages.data.length) throw columnError(where, 'data pages before the first page the OffsetIndex lists');
    }
    for (const l of wanted) {
      const bytes = parts[k++];
      const where2 = { ...where, page: l.index };
      let info;
      try {
        info = readPageHeaderAt(bytes, 0, bytes.length);
      } catch (msg) {
        throw columnError(where2, msg);
      }
      if (info.dataEnd !== bytes.length) throw columnError(where2, `the page is ${info.dataEnd} bytes, the OffsetIndex says ${bytes.length}`);
      if (info.type !== 'DATA_PAGE' && info.type !== 'DATA_PAGE_V2') throw columnError(where2, `the OffsetIndex points at a ${info.type}`);
      const rows = info.type === 'DATA_PAGE' ? info.header.data_page_header.num_values : info.header.data_page_header_v2.num_rows;
      if (rows !== l.rows) throw columnError(where2, `the page holds ${rows} rows, the OffsetIndex says ${l.rows}`);
      pages.data.push({ bytes, ...info, fileOffset: l.start, rowStart: l.rowStart, rows, number: l.index });
    }
    return pages;
  }
  const bytes = (await prefetched?.get(`${range.start}:${range.end}`)) ?? (await file.read(range.start, range.end));
  const rows = walkPages(bytes, range.start, 0, pages, where);
  if (rows !== group.rows) throw columnError(where, `the pages hold ${rows} rows, the row group has ${group.rows}`);
  pages.data.forEach((p, i) => (p.number = i));
  pages.data = pages.data.filter((p) => p.rowStart < group.selEnd && p.rowStart + p.rows > group.selStart);
  return pages;
}

/**
 * Fetches and walks, for each selected row group, the pages of a flat FLOAT / DOUBLE column
 * that hold the selected rows. Nothing is decoded yet.
 */
async function fetchColumnPages(ctx, column, groups) {
  const dtype = column.type === 'FLOAT' ? 'f32' : 'f64';
  const perGroup = [];
  for (const group of groups) {
    const where = { file: ctx.name, column: column.name, rowGroup: group.index };
    const chunk = ctx.metadata.row_groups[group.index].columns[column.leafIndex];
    const meta = chunk?.meta_data;
    if (meta && meta.type !== column.type) throw columnError(where, `the chunk's type ${meta.type} is not the schema's ${column.type}`);
    if (meta && Number(meta.num_values) !== group.rows) {
      throw columnError(where, `the chunk holds ${meta.num_values} values, the row group has ${group.rows} rows`);
    }
    const pages = await chunkPages(ctx.file, ctx.fileSize, chunk, group, where, ctx.prefetched);
    const col = {
      type: column.type,
      dtype,
      maxDef: column.maxDef,
      codec: meta.codec,
      compressors: ctx.compressors,
      chunkUncompressed: Number(meta.total_uncompressed_size) || undefined,
    };
    perGroup.push({ group, pages, col, where });
  }
  return perGroup;
}

function groupDictionary({ pages, col, where }) {
  if (!pages.dictionary) return null;
  const d = pages.dictionary;
  try {
    return decodeDictionaryPage(d.bytes.subarray(d.dataStart, d.dataEnd), d, col);
  } catch (msg) {
    throw columnError({ ...where, page: 'dictionary page' }, msg);
  }
}

/**
 * Reads a flat FLOAT / DOUBLE column over the selected row groups.
 * @param {{file: object, fileSize: number, metadata: object, compressors: object, name: string}} ctx
 * @param {{name: string, leafIndex: number, type: 'FLOAT'|'DOUBLE', maxDef: number}} column
 * @param {Array<{index: number, rows: number, selStart: number, selEnd: number}>} groups
 * @param {number} numRows
 */
export async function readFloatColumn(ctx, column, groups, numRows) {
  const dtype = column.type === 'FLOAT' ? 'f32' : 'f64';
  const perGroup = await fetchColumnPages(ctx, column, groups);
  // Every page that will be decoded has been walked and checked: the output is earned now.
  const values = dtype === 'f32' ? new Float32Array(numRows) : new Float64Array(numRows);
  const valid = column.maxDef > 0 ? new Uint8Array(numRows).fill(1) : null;
  let dst = 0;
  for (const entry of perGroup) {
    const { group, pages, col, where } = entry;
    const dictionary = groupDictionary(entry);
    for (const p of pages.data) {
      const a = Math.max(group.selStart - p.rowStart, 0);
      const b = Math.min(group.selEnd - p.rowStart, p.rows);
      if (dst + b - a > numRows) throw columnError({ ...where, page: p.number }, 'the pages hold more rows than the row groups say');
      try {
        decodeFloatPage(p.bytes.subarray(p.dataStart, p.dataEnd), p, col, dictionary, a, b, values, valid, dst);
      } catch (msg) {
        throw columnError({ ...where, page: p.number }, msg);
      }
      dst += b - a;
    }
  }
  if (dst !== numRows) throw columnError({ file: ctx.name, column: column.name }, `the pages gave ${dst} rows of the ${numRows} selected`);
  let anyNull = false;
  if (valid) for (let i = 0; i < valid.length && !anyNull; i++) anyNull = valid[i] === 0;
  return { type: column.type, values, valid: anyNull ? valid : null };
}

/**
 * The column's pages for a decoder elsewhere (a Web Worker): ALP pages as their payload bytes
 * (decode with alp.decode), other pages decoded here; each with its rows and validity.
 */
export async function columnPagesFor(ctx, column, groups) {
  const dtype = column.type === 'FLOAT' ? 'f32' : 'f64';
  const perGroup = await fetchColumnPages(ctx, column, groups);
  const out = [];
  for (const entry of perGroup) {
    const { group, pages, col, where } = entry;
    let dictionary;
    for (const p of pages.data) {
      const at = { ...where, page: p.number };
      const body = p.bytes.subarray(p.dataStart, p.dataEnd);
      const base = { rowGroup: group.index, page: p.number, rowStart: group.start + p.rowStart, numRows: p.rows, encoding: encodingName(p.encodingId) };
      try {
        if (p.encodingId === ALP_ENCODING_ID) {
          const { defs, nonNull, payload } = splitDataPage(body, p, col);
          const count = alpValueCount(payload);
          if (count !== nonNull) throw typeof count === 'string' ? count : `the ALP payload holds ${count} values but the page has ${nonNull} non-null values`;
          const valid = defs && nonNull < p.rows ? Uint8Array.from(defs, (d) => (d === col.maxDef ? 1 : 0)) : null;
          out.push({ ...base, alp: payload.slice(), valid });
        } else {
          dictionary ??= groupDictionary(entry);
          const values = dtype === 'f32' ? new Float32Array(p.rows) : new Float64Array(p.rows);
          const valid = col.maxDef > 0 ? new Uint8Array(p.rows).fill(1) : null;
          decodeFloatPage(body, p, col, dictionary, 0, p.rows, values, valid, 0);
          out.push({ ...base, values, valid: valid && valid.includes(0) ? valid : null });
        }
      } catch (msg) {
        if (msg instanceof Error && msg.name === 'ParquetError') throw msg;
        throw columnError(at, msg);
      }
    }
  }
  return { dtype, pages: out };
}
