// Whole-call helpers for the worker pool (numdecode/worker), whose jobs must return plain,
// cloneable values: `pool.run({ format: 'bpcells', op: 'readSlice', args: [source, options, a, b] })`
// opens the matrix (a directory, a URL, a File, bytes; for HDF5 the options' group), reads
// storage-axis positions [a, b) and returns the arrays with the matrix description. Open matrices
// are kept (a few) per worker, so later slices of the same source cost no new open.
import { checkOptionNames, open } from './open.js';

const KEEP = 4;
// key -> {matrix: Promise<Matrix>, users: calls reading it now, evicted}: a matrix pushed out of
// the cache is closed once its last reader is done, not under a read still running.
const opened = new Map();

function keyOf(source, options) {
  let id;
  if (typeof source === 'string') id = source;
  else if (typeof URL !== 'undefined' && source instanceof URL) id = source.href;
  else if (typeof File !== 'undefined' && source instanceof File) id = `file:${source.name}:${source.size}:${source.lastModified}`;
  else return null; // bytes, Blobs and objects: no stable identity across messages
  return `${id}#${options?.group ?? ''}`;
}

function closeWhenIdle(entry) {
  if (entry.evicted && entry.users === 0) entry.matrix.then((m) => m.close?.(), () => {});
}

// A new cache entry for `key`; the oldest entries past KEEP are pushed out.
function addEntry(key, source, options) {
  const entry = { matrix: open(source, options), users: 0, evicted: false };
  opened.set(key, entry);
  entry.matrix.catch(() => opened.get(key) === entry && opened.delete(key));
  while (opened.size > KEEP) {
    const [oldest, old] = opened.entries().next().value;
    opened.delete(oldest);
    old.evicted = true;
    closeWhenIdle(old);
  }
  return entry;
}

// The matrix, and done() to call when the call no longer reads it.
async function matrixFor(source, options) {
  const key = keyOf(source, options);
  if (key === null) {
    const m = await open(source, options);
    return { m, done: () => m.close?.() };
  }
  const entry = opened.get(key) ?? addEntry(key, source, options);
  entry.users++;
  const done = () => {
    entry.users--;
    closeWhenIdle(entry);
  };
  try {
    return { m: await entry.matrix, done };
  } catch (err) {
    done();
    throw err;
  }
}

function describe(m) {
  return {
    version: m.version,
    shape: m.shape,
    storageOrder: m.storageOrder,
    nnz: m.nnz,
    dtype: m.dtype,
    group: m.group,
    stats: { requests: m.stats.requests, bytes: m.stats.bytes },
  };
}

/** {version, shape, storageOrder, nnz, dtype, group, stats, idxptr, index, val} of positions [start, end). */
export async function readSlice(source, options = {}, start = 0, end = undefined) {
  checkOptionNames('bpcells readSlice', options); // a matrix already open skips open()'s check
  const { m, done } = await matrixFor(source, options);
  try {
    const slice = await m.read(start, end ?? m.major);
    return { ...describe(m), ...slice };
  } finally {
    done();
  }
}

/** {version, shape, ..., rowNames, colNames}. */
export async function readNames(source, options = {}) {
  checkOptionNames('bpcells readNames', options);
  const { m, done } = await matrixFor(source, options);
  try {
    // The storage order it reports is checked (a matrix over HTTP may have left that to its first read).
    const [rowNames, colNames] = await Promise.all([m.rowNames(), m.colNames(), m.checkedStorageOrder()]);
    return { ...describe(m), rowNames, colNames };
  } finally {
    done();
  }
}
