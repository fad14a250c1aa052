// BPCells matrices stored as groups of an HDF5 file (write_matrix_hdf5), read through h5wasm.
// The group becomes a directory-like source (hdf5-group-source.js) for the directory reader, so a
// matrix opened here has the same API, laziness and checks as a directory; errors name the
// dataset path (err.file = "/mat/idxptr": the group source's locate() names its arrays).
import { BpcellsError } from '../errors.js';
import { asBpcellsError } from './as-bpcells-error.js';
import { Matrix } from './matrix.js';
import { openMatrix } from './open-matrix.js';
import { normalizePath, openHdf5 } from '../hdf5/reader.js';
import { Hdf5GroupSource } from './hdf5-group-source.js';

// Seek tables loaded whole at open (see open-matrix.js prefetchBytes). Over async sources (HTTP)
// with many requests in flight (Node's 64), only the *_idx tables, which place a column's data,
// are held by default, when together they fit HDF5_PREFETCH_ASYNC: open fetches them and the data
// arrays' B-tree leaves they lead to (one request a leaf) beside its own last reads, in no more
// round trips, and a column then takes one, its *_starts entries fetched with its data. At a
// browser's 6 in flight those leaves would cost open 2 round trips more, which one column does not
// win back: there (and for larger tables) the tables are read by range, 2 round trips a column.
const HDF5_PREFETCH_SYNC = 4 * 1024 * 1024;
const HDF5_PREFETCH_ASYNC = 256 * 1024;
const HOLD_MIN_CONCURRENCY = 16;
// The arrays of packed and unpacked matrices that open() warms over async sources: the chunk
// indexes of the large ones, the whole of the small ones (idxptr of a few thousand columns).
const WARM_EARLY = ['idxptr', 'index_idx_offsets', 'val_idx_offsets', 'index_data', 'index_idx', 'index_starts', 'val_data', 'val_idx', 'index', 'val'];

/** A BPCells matrix stored in an HDF5 group: the Matrix API plus group, fileName and close(). */
export class Hdf5Matrix extends Matrix {
  /** As Matrix.inspect(), plus the HDF5 group and file. */
  inspect() {
    return { ...super.inspect(), group: this.group, fileName: this.fileName };
  }

  /** Releases the HDF5 file handle (the matrix cannot be read afterwards). */
  close() {
    this._reader.close();
    super.close();
  }
}

function matrixGroupList(groups) {
  const m = groups.filter((g) => g.matrix).map((g) => g.group);
  return m.length ? `matrix groups in the file: ${m.join(', ')}` : `no group has a version attribute; groups: ${groups.map((g) => g.group).join(', ')}`;
}

async function chooseGroup(reader, group) {
  if (group !== undefined && group !== null) {
    const path = normalizePath(group);
    const type = await reader.objectType(path);
    if (type !== 'group') {
      const groups = await reader.groups();
      const what = type === null ? 'not found' : `is a ${type}, not a group`;
      throw new BpcellsError(`group ${path} ${what} in ${reader.name} (${matrixGroupList(groups)})`, { file: path });
    }
    return path;
  }
  const groups = await reader.groups();
  const matrices = groups.filter((g) => g.matrix);
  if (matrices.length === 1) return matrices[0].group;
  // { group } chooses among matrices; with none there is nothing to choose, so it is not suggested.
  if (matrices.length === 0) throw new BpcellsError(`${reader.name} holds no BPCells matrix group (${matrixGroupList(groups)})`, { file: reader.name });
  throw new BpcellsError(`${reader.name} holds ${matrices.length} BPCells matrices: pass { group } (${matrixGroupList(groups)})`, { file: reader.name });
}

// The HDF5 file; options.blockSize and cacheBytes are its block cache's, hdf5TimeLimit its calls' limit,
// concurrency the requests its passes may have in flight at once (js/io's option).
function openReader(file, head, options) {
  return openHdf5(file, head, { blockSize: options.blockSize, cacheBytes: options.cacheBytes, timeLimit: options.hdf5TimeLimit, concurrency: options.concurrency });
}

/**
 * Opens the BPCells matrix in group `options.group` (or the file's only matrix group) of an HDF5
 * byte file. `head` are the file's first bytes when already read (async sources).
 */
export async function openHdf5File(file, head, options = {}) {
  const reader = await openReader(file, head, options);
  try {
    const group = await chooseGroup(reader, options.group);
    const src = new Hdf5GroupSource(reader, group, file.stats);
    // Over async sources, warm the arrays a matrix group may hold right away, beside open's own
    // reads: their passes overlap open's instead of following it (2 round trips fewer). An array
    // the version rules out is simply not in the group (a name lookup, no error).
    const early = reader.synchronous ? [] : WARM_EARLY.map((name) => src.warm([name]).catch(() => null));
    const prefetchBytes =
      options.prefetchBytes ?? (reader.synchronous ? HDF5_PREFETCH_SYNC : reader.concurrency >= HOLD_MIN_CONCURRENCY ? HDF5_PREFETCH_ASYNC : 0);
    const holdStarts = reader.synchronous || options.prefetchBytes !== undefined;
    // Seek tables the matrix reader will hold whole (prefetchBytes) are read early too.
    if (!reader.synchronous && prefetchBytes > 0) early.push(src.preload(prefetchBytes, holdStarts).catch(() => null));
    // With seek tables held, a column's data is one round trip away: storage_order (its 64 KiB
    // global heap collection would make open 1.5x the bytes) is then checked by the first read
    // (deferStorageOrder: openMatrix defers it for packed matrices whose tables it holds), which
    // fetches the collection beside its data; open reads the string up to that collection.
    const deferStorageOrder = !reader.synchronous && prefetchBytes > 0;
    if (deferStorageOrder) early.push(src.warmText('storage_order').catch(() => null));
    const m = await openMatrix(src, { ...options, prefetchBytes, holdStarts, deferStorageOrder });
    // Over HTTP (and other async sources), prime HDF5's chunk indexes of the arrays a read uses.
    await Promise.all(early);
    if (!reader.synchronous) await src.warm(m._arrayNames);
    Object.setPrototypeOf(m, Hdf5Matrix.prototype);
    Object.assign(m, { group, fileName: file.name, _reader: reader });
    return m;
  } catch (err) {
    reader.close();
    throw err;
  }
}

/** [{group, version, shape, storageOrder, nnz}] for every matrix group of an HDF5 byte file. */
export async function listHdf5File(file, head, options = {}) {
  const reader = await openReader(file, head, options);
  try {
    const groups = (await reader.groups()).filter((g) => g.matrix);
    const out = [];
    for (const { group } of groups) {
      const src = new Hdf5GroupSource(reader, group, file.stats);
      try {
        const m = await openMatrix(src, { prefetchBytes: 0 });
        out.push({ group, version: m.version, shape: m.shape, storageOrder: m.storageOrder, nnz: m.nnz });
      } catch (err) {
        const e = asBpcellsError(err);
        out.push({ group, error: e.message });
      }
    }
    return out;
  } finally {
    reader.close();
  }
}
