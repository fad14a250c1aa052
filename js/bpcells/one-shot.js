// Whole-call helpers for the worker pool (numdecode/worker), whose jobs must return plain,
// cloneable values: `pool.run({ format: 'bpcells', op: 'readSlice', args: [source, options, a, b] })`
// opens the matrix (a directory, a URL, a File, bytes; for HDF5 the options' group), reads
// storage-axis positions [a, b) and returns the arrays with the matrix description. Open matrices
// are kept (a few) per worker, so later slices of the same source cost no new open.
import { open } from './open.js';

const KEEP = 4;
const opened = new Map(); // key -> Promise<Matrix>

function keyOf(source, options) {
  let id;
  if (typeof source === 'string') id = source;
  else if (typeof URL !== 'undefined' && source instanceof URL) id = source.href;
  else if (typeof File !== 'undefined' && source instanceof File) id = `file:${source.name}:${source.size}:${source.lastModified}`;
  else return null; // bytes, Blobs and objects: no stable identity across messages
  return `${id}#${options?.group ?? ''}`;
}

async function matrixFor(source, options) {
  const key = keyOf(source, options);
  if (key === null) return { m: await open(source, options), keep: false };
  if (!opened.has(key)) {
    const p = open(source, options);
    opened.set(key, p);
    p.catch(() => opened.delete(key));
    while (opened.size > KEEP) {
      const [oldest, old] = opened.entries().next().value;
      opened.delete(oldest);
      old.then((m) => m.close?.(), () => {});
    }
  }
  return { m: await opened.get(key), keep: true };
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
  const { m, keep } = await matrixFor(source, options);
  try {
    const slice = await m.read(start, end ?? m.major);
    return { ...describe(m), ...slice };
  } finally {
    if (!keep) m.close?.();
  }
}

/** {version, shape, ..., rowNames, colNames}. */
export async function readNames(source, options = {}) {
  const { m, keep } = await matrixFor(source, options);
  try {
    return { ...describe(m), rowNames: await m.rowNames(), colNames: await m.colNames() };
  } finally {
    if (!keep) m.close?.();
  }
}
