// Which bytes of a column chunk a read needs, fetched and walked into pages: the whole chunk, or
// with an OffsetIndex and a partial selection only the pages holding the rows (plus the
// dictionary page). Whole chunks of several columns can be fetched together (prefetchChunks).
import { readOffsetIndex } from 'hyparquet/src/indexes.js';
import { readPageHeaderAt } from './pages.js';
import { columnError } from './column-error.js';

/** Byte range [start, end) of a column chunk, checked against the file. */
/** Where a column chunk's first page starts: its dictionary page, else its first data page. */
export function chunkStart(meta) {
  const data = Number(meta.data_page_offset);
  const dict = meta.dictionary_page_offset === undefined ? undefined : Number(meta.dictionary_page_offset);
  // some writers store dictionary_page_offset 0 for "none"
  return dict !== undefined && dict > 0 && dict < data ? dict : data;
}

export function chunkRange(chunk, fileSize) {
  const meta = chunk.meta_data;
  if (!meta) throw 'the column chunk has no metadata (an external file_path is not supported)';
  const start = chunkStart(meta);
  const length = Number(meta.total_compressed_size);
  // An empty chunk (parquet-cpp's 0-row row group of an empty table: offset 0, size 0) has no pages.
  if (length === 0 && Number(meta.num_values) === 0) return { start: 0, end: 0 };
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
      info = readPageHeaderAt(bytes, offset, bytes.length, base);
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

/** A partial selection in a chunk with an OffsetIndex fetches only the pages it needs. */
export function usesOffsetIndex(chunk, group) {
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
        if (end > start) ranges.push([start, end]);
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
 * A whole chunk comes from `prefetched` (prefetchChunks), else from `place(start, end)` when given
 * (read into wasm memory: then `view()` gives the chunk's bytes, re-read after memory growth),
 * else from the file. `repeated` (a list's leaf): every page, whatever the rows.
 * @returns {{dictionary: object|null, data: object[], view?: () => Uint8Array}}
 */
export async function chunkPages(file, fileSize, chunk, group, where, { prefetched, place, repeated = false } = {}) {
  let range;
  try {
    range = chunkRange(chunk, fileSize);
  } catch (msg) {
    throw columnError(where, msg);
  }
  const pages = { dictionary: null, data: [] };
  if (!repeated && usesOffsetIndex(chunk, group)) {
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
        info = readPageHeaderAt(bytes, 0, bytes.length, l.start);
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
  const key = `${range.start}:${range.end}`;
  const ahead = prefetched?.get(key);
  prefetched?.delete(key); // read once: its bytes go with the pages
  let bytes = await ahead;
  if (bytes === undefined && place) {
    pages.view = place(range.start, range.end);
    bytes = pages.view();
  }
  bytes ??= await file.read(range.start, range.end);
  const rows = walkPages(bytes, range.start, 0, pages, where);
  pages.data.forEach((p, i) => (p.number = i));
  if (repeated) return pages; // a list's pages count values, not rows: every page is read
  if (rows !== group.rows) throw columnError(where, `the pages hold ${rows} rows, the row group has ${group.rows}`);
  pages.data = pages.data.filter((p) => p.rowStart < group.selEnd && p.rowStart + p.rows > group.selStart);
  return pages;
}
