// Reads by rows and by columns whatever the storage order, and blocks() streaming. Along the
// storage order a range of rows (row-major) or columns (col-major) is one slice of idxptr and one
// byte range of index / val: Matrix.read. Across it, every stored entry must be looked at (a
// column of a row-major matrix has an entry in any row), so the other direction is a full scan in
// blocks of the storage axis, keeping only the entries whose index falls in the range.
import { valueArrayType, checkInto, jsOutput, outputArray, viewOutput } from './slice-output.js';
import { getModule } from '../wasm/load.js';

const AXES = { col: 'columns', row: 'rows' };
// Entries per block of a scan or of blocks() by default: big enough that requests stay few, small
// enough that a block's arrays stay a few MB.
const BLOCK_ENTRIES = 1 << 20;

function checkRange(what, start, end, length) {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end > length) {
    throw new RangeError(`bpcells: ${what}(${start}, ${end}): range must satisfy 0 <= start <= end <= ${length}`);
  }
}

function checkCall(what, options, names) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw new TypeError(`${what}: options must be an object, got ${typeof options}`);
  for (const key of Object.keys(options)) {
    if (!names.includes(key)) throw new TypeError(`${what}: unknown option ${JSON.stringify(key)} (one of ${names.join(', ')})`);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new TypeError(`${what}: options.onProgress must be a function`);
  }
  return options;
}

/** Storage-axis positions per block: about BLOCK_ENTRIES entries, at least 1. */
function defaultBlockSize(m) {
  if (m.nnz === 0) return Math.max(1, m.major);
  return Math.max(1, Math.min(m.major, Math.floor((m.major * BLOCK_ENTRIES) / m.nnz)));
}

// Values copied as 32-bit words, so that every bit pattern (NaN payloads, -0) arrives unchanged.
const words = (a) => new Uint32Array(a.buffer, a.byteOffset, (a.length * a.BYTES_PER_ELEMENT) / 4);

/**
 * Entries of positions [start, end) of the axis across the storage order (columns of a row-major
 * matrix, rows of a col-major one), by a scan of the whole matrix: {idxptr, index, val} in the
 * shape read() gives along the storage order (CSC for columns, CSR for rows), index ascending
 * within each column / row. output(nnz, entries) makes the targets (slice-output.js).
 */
async function scanAcross(m, what, start, end, output, signal, onProgress) {
  const k = end - start;
  const per = m.dtype === 'f64' ? 2 : 1; // 32-bit words per value
  const counts = outputArray(what, Float64Array, k + 1);
  const parts = [];
  const step = defaultBlockSize(m);
  for (let a = 0; a < m.major; a += step) {
    const b = Math.min(m.major, a + step);
    const { idxptr, index, val } = await m.read(a, b, { signal });
    let n = 0;
    for (let p = 0; p < index.length; p++) if (index[p] >= start && index[p] < end) n++;
    const at = new Uint32Array(n); // storage-axis position of each kept entry
    const pos = new Uint32Array(n); // its position in [start, end)
    const bits = new Uint32Array(n * per);
    const src = words(val);
    for (let i = 0, j = 0; i < b - a; i++) {
      for (let p = idxptr[i]; p < idxptr[i + 1]; p++) {
        const x = index[p] - start;
        if (x < 0 || x >= k) continue;
        at[j] = a + i;
        pos[j] = x;
        for (let w = 0; w < per; w++) bits[j * per + w] = src[p * per + w];
        counts[x + 1]++;
        j++;
      }
    }
    parts.push({ at, pos, bits });
    onProgress?.({ done: b, total: m.major, unit: AXES[m.storageOrder] });
  }
  for (let i = 1; i <= k; i++) counts[i] += counts[i - 1];
  const nnz = counts[k];
  const out = output(nnz, k + 1);
  try {
    const index = out.index.array ?? new Uint32Array(getModule('bpcells').HEAPU8.buffer, out.index.ptr, nnz);
    const val = out.val.array ?? new (valueArrayType(m.dtype))(getModule('bpcells').HEAPU8.buffer, out.val.ptr, nnz);
    const dst = words(val);
    const next = counts.slice(0, k); // where each column's / row's next entry goes
    // Blocks in storage order, so each column's / row's index comes out ascending.
    for (const { at, pos, bits } of parts) {
      for (let j = 0; j < at.length; j++) {
        const q = next[pos[j]]++;
        index[q] = at[j];
        for (let w = 0; w < per; w++) dst[q * per + w] = bits[j * per + w];
      }
    }
  } catch (err) {
    out.fail();
    throw err;
  }
  out.idxptr.set(counts);
  return out.finish();
}

/**
 * m.readColumns / m.readRows (axis 'col' / 'row'): along the storage order m.read (or m.readView),
 * across it a scan (above). options: {signal, onProgress, into} (into not for views).
 */
export async function readByAxis(m, axis, start, end, options, view) {
  const what = `${view ? (axis === 'col' ? 'readColumnsView' : 'readRowsView') : axis === 'col' ? 'readColumns' : 'readRows'}(${start}, ${end})`;
  checkRange(what.slice(0, what.indexOf('(')), start, end, axis === 'col' ? m.shape[1] : m.shape[0]);
  const { signal, onProgress, into } = checkCall(what, options, view ? ['signal', 'onProgress'] : ['signal', 'onProgress', 'into']);
  if (axis === m.storageOrder) {
    const slice = await (view ? m.readView(start, end, { signal }) : m.read(start, end, { signal, into }));
    onProgress?.({ done: end - start, total: end - start, unit: AXES[axis] });
    return slice;
  }
  checkInto(what, into, m.dtype);
  const output = view ? (nnz, entries) => viewOutput(what, m.dtype, nnz, entries) : (nnz, entries) => jsOutput(what, into, m.dtype, nnz, entries);
  return scanAcross(m, what, start, end, output, signal, onProgress);
}

/**
 * m.blocks({size, signal, onProgress}): the whole matrix in blocks of `size` storage-axis positions
 * (columns for 'col', rows for 'row'; default: about 2^20 entries a block), each a sparse block
 * {start, end, idxptr, index, val} as read(start, end) returns it.
 */
export async function* matrixBlocks(m, options) {
  const { size = defaultBlockSize(m), signal, onProgress } = checkCall('blocks', options, ['size', 'signal', 'onProgress']);
  if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`bpcells: blocks: size must be a positive integer, got ${size}`);
  for (let start = 0; start < m.major; start += size) {
    const end = Math.min(m.major, start + size);
    const slice = await m.read(start, end, { signal });
    onProgress?.({ done: end, total: m.major, unit: AXES[m.storageOrder] });
    yield { start, end, ...slice };
  }
}
