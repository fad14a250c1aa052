// Which chunks of a Zarr store are not stored. A chunk that was never written reads as the array's
// fill value, which looks just like data (an all-zero precipitation chunk, a NaN hole): the view
// hatches those cells instead. The store wrapper below notes every chunk key the store answered
// "not there" for, as it answers, so that knowing costs no extra request.
import { HttpStore } from '../../js/zarr/http-store.js';

const METADATA = /(^|\/)(zarr\.json|\.zarray|\.zgroup|\.zattrs|\.zmetadata)$/;
const bare = (key) => String(key).replace(/^\/+/, '');

/**
 * Wraps a store (or makes one for a URL) so that `missing` holds the keys of the chunks (or shards)
 * it found absent.
 * @param {string | {get: Function, getRange?: Function}} source a store URL, or a zarrita store
 * @returns {{store: object, missing: Set<string>}}
 */
export function noteMissingChunks(source) {
  // A URL is read through numdecode's I/O layer (retries, Range answers checked), as list() reads it.
  const inner = typeof source === 'string' ? new HttpStore(source) : source;
  const missing = new Set();
  const note = (key, got) => {
    if (got === undefined && !METADATA.test(key)) missing.add(bare(key));
    return got;
  };
  const store = { get: async (key, options) => note(key, await inner.get(key, options)) };
  if (typeof inner.getRange === 'function') store.getRange = async (key, range, options) => note(key, await inner.getRange(key, range, options));
  if (typeof inner.contents === 'function') store.contents = () => inner.contents();
  return { store, missing };
}

/** The store key of the chunk (or shard) at grid coordinates `coords` of an array, as the description's encoding writes it. */
export function chunkKey(description, coords) {
  const { name, separator } = description.chunkKeyEncoding;
  const key = description.zarrFormat === 3 && name === 'default'
    ? ['c', ...coords].join(separator)
    : coords.length ? coords.join(separator) : '0';
  return `${bare(description.path)}/${key}`;
}

/**
 * A test (r, c) -> true for the cells of a 2-D slice that lie in a chunk the store does not hold,
 * or null when every chunk the slice covers is stored.
 * @param {object} description the array's description (path, zarrFormat, chunkKeyEncoding, chunks, shards: list()'s array node)
 * @param {Array<{index?: number, start?: number}>} parsed the slice, per dimension
 * @param {number} yDim the dimension along the rows
 * @param {number} xDim the dimension along the columns
 * @param {{rows: number, cols: number}} size
 * @param {Set<string>} missing keys noted by noteMissingChunks
 */
export function notStoredCells(description, parsed, yDim, xDim, { rows, cols }, missing) {
  const grid = description.shards ?? description.chunks;
  if (!grid || missing.size === 0) return null;
  const rowChunk = Int32Array.from({ length: rows }, (_, r) => Math.floor((parsed[yDim].start + r) / grid[yDim]));
  const colChunk = Int32Array.from({ length: cols }, (_, c) => Math.floor((parsed[xDim].start + c) / grid[xDim]));
  const fixed = parsed.map((p, d) => (d === yDim || d === xDim ? 0 : Math.floor(p.index / grid[d])));
  const absent = new Set();
  for (const ky of new Set(rowChunk)) {
    for (const kx of new Set(colChunk)) {
      const coords = fixed.map((k, d) => (d === yDim ? ky : d === xDim ? kx : k));
      if (missing.has(chunkKey(description, coords))) absent.add(ky * 1e6 + kx);
    }
  }
  if (absent.size === 0) return null;
  return (r, c) => absent.has(rowChunk[r] * 1e6 + colChunk[c]);
}
