// Which chunks a selection of a Zarr array touches, and where each chunk's part lands in the output.
// Selections are zarrita's: null (everything) or one entry per dimension, each null (all of it), an
// integer (one index; the dimension drops out of the output) or a slice {start, stop, step} (zarr.slice),
// with Python's rules for negative and out-of-range bounds and a step of 1 or more.

/**
 * One dimension of a selection, normalized: an index, or a slice as start, step and count.
 * @typedef {{index: number} | {start: number, step: number, count: number}} DimSelection
 */

function selectionError(message, fields) {
  const err = new RangeError(message);
  Object.assign(err, fields);
  return err;
}

// Python's slice.indices for a positive step: bounds wrap once and then clamp to [0, length].
function clampBound(value, length, fallback) {
  if (value === null || value === undefined) return fallback;
  if (value < 0) return Math.max(0, value + length);
  return Math.min(value, length);
}

function isInteger(value) {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * Normalizes a zarrita selection against an array's shape: one DimSelection per dimension
 * (missing trailing entries select all).
 * @param {null | undefined | (null | number | {start?: number|null, stop?: number|null, step?: number|null})[]} selection
 * @param {number[]} shape
 * @returns {DimSelection[]}
 */
export function normalizeSelection(selection, shape) {
  if (selection !== null && selection !== undefined && !Array.isArray(selection)) {
    throw new TypeError('zarr read: selection must be null or an array with one entry per dimension (null, an integer or zarr.slice(...))');
  }
  const entries = selection ?? [];
  if (entries.length > shape.length) {
    throw selectionError(`zarr read: the selection has ${entries.length} entries but the array has ${shape.length} dimensions`, {
      dimensions: shape.length,
    });
  }
  return shape.map((length, dim) => {
    const entry = entries[dim] ?? null;
    if (typeof entry === 'number') {
      if (!isInteger(entry)) throw new TypeError(`zarr read: selection[${dim}] must be an integer, got ${entry}`);
      const index = entry < 0 ? entry + length : entry;
      if (index < 0 || index >= length) {
        throw selectionError(`zarr read: index ${entry} is out of bounds for dimension ${dim} of length ${length}`, { dimension: dim, index: entry });
      }
      return { index };
    }
    if (entry !== null && typeof entry !== 'object') {
      throw new TypeError(`zarr read: selection[${dim}] must be null, an integer or a slice {start, stop, step}, got ${typeof entry}`);
    }
    const { start = null, stop = null, step = null } = entry ?? {};
    for (const [name, value] of [['start', start], ['stop', stop], ['step', step]]) {
      if (value !== null && !isInteger(value)) throw new TypeError(`zarr read: selection[${dim}].${name} must be an integer or null, got ${value}`);
    }
    const by = step ?? 1;
    if (by < 1) throw selectionError(`zarr read: selection[${dim}] has step ${by}; only steps of 1 or more are supported`, { dimension: dim, step: by });
    const from = clampBound(start, length, 0);
    const to = clampBound(stop, length, length);
    return { start: from, step: by, count: to > from ? Math.ceil((to - from) / by) : 0 };
  });
}

/** The output shape of a normalized selection (indexed dimensions drop out). */
export function selectionShape(dims) {
  return dims.filter((d) => d.index === undefined).map((d) => d.count);
}

/**
 * One chunk's share of one dimension: the chunk's index along it, the first selected position
 * inside the chunk, the step and count there, and where those values start in the output
 * dimension (-1 for an indexed dimension, which has no output dimension).
 * @typedef {{chunk: number, start: number, step: number, count: number, out: number}} DimPart
 */

/**
 * For each dimension, the chunks the selection touches along it (chunks it only steps over are left out).
 * @param {DimSelection[]} dims
 * @param {number[]} chunkShape
 * @returns {DimPart[][]}
 */
export function dimensionParts(dims, chunkShape) {
  return dims.map((d, dim) => {
    const size = chunkShape[dim];
    if (d.index !== undefined) {
      const chunk = Math.floor(d.index / size);
      return [{ chunk, start: d.index - chunk * size, step: 1, count: 1, out: -1 }];
    }
    const parts = [];
    if (d.count === 0) return parts;
    const last = d.start + (d.count - 1) * d.step;
    for (let chunk = Math.floor(d.start / size); chunk <= Math.floor(last / size); chunk++) {
      const begin = chunk * size;
      // The first selected position at or after the chunk's start.
      const first = d.start >= begin ? 0 : Math.ceil((begin - d.start) / d.step);
      const at = d.start + first * d.step;
      if (at >= begin + size || at > last) continue; // the step jumps over this chunk
      const end = Math.min(begin + size - 1, last);
      parts.push({ chunk, start: at - begin, step: d.step, count: Math.floor((end - at) / d.step) + 1, out: first });
    }
    return parts;
  });
}

/** The number of chunks a selection touches (the product of the per-dimension counts). */
export function partCount(parts) {
  return parts.reduce((n, p) => n * p.length, 1);
}

/**
 * Every chunk the selection touches, in C order of chunk coordinates, each as one DimPart per
 * dimension. A generator: a selection of a huge array names its chunks without a list of them.
 * @param {DimPart[][]} parts from dimensionParts
 * @returns {Generator<DimPart[]>}
 */
export function* chunkParts(parts) {
  if (parts.some((p) => p.length === 0)) return;
  if (parts.length === 0) {
    yield []; // a 0-dimensional array: its one chunk
    return;
  }
  const at = parts.map(() => 0);
  for (;;) {
    yield parts.map((p, d) => p[at[d]]);
    let d = parts.length - 1;
    while (d >= 0 && ++at[d] === parts[d].length) at[d--] = 0;
    if (d < 0) return;
  }
}

/**
 * The same chunks grouped by the shard that holds them (shard coordinates = chunk coordinates
 * divided by chunksPerShard), shards in C order, each shard's chunks in C order: a shard's index
 * is read once and its chunks fetched together.
 * @param {DimPart[][]} parts
 * @param {number[]} chunksPerShard
 * @returns {Generator<{shard: number[], chunks: DimPart[][]}>}
 */
export function* shardGroups(parts, chunksPerShard) {
  const byShard = parts.map((list, d) => {
    const groups = [];
    for (const p of list) {
      const shard = Math.floor(p.chunk / chunksPerShard[d]);
      const last = groups[groups.length - 1];
      if (last && last.shard === shard) last.parts.push(p);
      else groups.push({ shard, parts: [p] });
    }
    return groups;
  });
  for (const groups of chunkParts(byShard)) {
    yield { shard: groups.map((g) => g.shard), chunks: [...chunkParts(groups.map((g) => g.parts))] };
  }
}
