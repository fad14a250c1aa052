// A Matrix from a source of named array files (a directory, or an HDF5 group presented as one):
// open reads version, storage_order, shape (round trip 1); idxptr (whole up to 64 KiB, else its
// first and last blocks), the 8-byte headers of the data files and *_idx_offsets (round trip 2);
// for packed matrices the *_idx / *_starts seek tables when together they fit `prefetchBytes`
// (else they are read by range on demand) (round trip 3). Everything is checked: headers,
// lengths, monotone idxptr, counts that agree; BPCells itself accepts several of these
// corruptions silently (src/bpcells/matrix.cpp checks a whole directory the same way).
import { BpcellsError, CODES } from '../errors.js';
import { textAt } from '../wasm/heap.js';
import { ensureFormat, getModule } from '../wasm/load.js';
import { ArrayFile, HEADER, callBpcells, checkHeader, labelOf, singleLine } from './array-file.js';
import { CHUNK, VARIANT } from './chunk-decoder.js';
import { IdxptrReader } from './idxptr.js';
import { Matrix } from './matrix.js';
import { PackedStream, residentRegistry } from './packed-stream.js';

const DEFAULT_PREFETCH = 4 * 1024 * 1024;
// idxptr up to this size is read whole at open (6000 columns of u64: 48 KiB), so that a column read
// after open asks for its index and values only: one round trip instead of two.
const IDXPTR_WHOLE_MAX = 64 * 1024;
const utf8 = new TextEncoder();
const DEFAULT_RESIDENT = 16 * 1024 * 1024; // the I/O layer's default cacheBytes

// The version file -> {text, packed, dtype, format} (checked in C++: src/bpcells/matrix.cpp).
function parseVersion(bytes, label) {
  const mod = getModule('bpcells');
  const parse = (p, l, namePtr, nameLen) => textAt(mod, mod._numdecode_bpcells_parse_version(p, l, namePtr, nameLen));
  return JSON.parse(callBpcells([bytes, utf8.encode(label)], parse));
}

function parseStorageOrder(bytes, label) {
  const order = singleLine(bytes, label);
  if (order !== 'row' && order !== 'col') {
    throw new BpcellsError(`${label}: must be "row" or "col", found ${JSON.stringify(order)}`, { file: label });
  }
  return order;
}

// The storage order idxptr's entry count implies, or null when it does not tell: a square matrix,
// an empty axis (BPCells writes idxptr [0, 0] for a matrix with no columns, so a 1 x 0 matrix
// by column has the count a row order would), a count that fits neither axis. Open then reads the string.
function orderFromIdxptr([rows, cols], count) {
  if (rows === 0 || cols === 0) return null;
  const col = count === cols + 1;
  const row = count === rows + 1;
  return col === row ? null : col ? 'col' : 'row';
}

// idxptr holds one entry more than the major axis (columns for col order, rows for row order).
function idxptrCountError(label, count, major, order) {
  const axis = order === 'col' ? 'columns (storage_order=col)' : 'rows (storage_order=row)';
  return new BpcellsError(`${label}: ${count} entries, expected ${major + 1} for ${major} ${axis}`, { file: label });
}

// The check open deferred: storage_order read (once) and compared with the order open took from
// idxptr (a disagreement is reported as idxptr's count against the string's order).
function deferredOrderCheck(src, inferred, label, shape) {
  let pending = null;
  return () => {
    pending ??= src.readAll('storage_order').then((bytes) => {
      const order = parseStorageOrder(bytes, label);
      if (order !== inferred) {
        const count = (inferred === 'col' ? shape[1] : shape[0]) + 1;
        throw idxptrCountError(labelOf(src, 'idxptr'), count, order === 'col' ? shape[1] : shape[0], order);
      }
    });
    // A failed or aborted fetch is tried again by the next read; a damaged or wrong string (HDF5
    // may take its whole time limit to find out) fails every read with the same error.
    pending.catch((err) => {
      if (err?.code === CODES.NETWORK || err?.code === CODES.ABORTED) pending = null;
    });
    return pending;
  };
}

/**
 * Opens the matrix whose array files `src` holds by name: a directory (js/io's RangeDirectory) or
 * an HDF5 group (hdf5-group-source.js). options.prefetchBytes: seek tables loaded whole at open
 * when together at most this many bytes (default 4 MiB; 0 = everything by range); cacheBytes
 * bounds the packed words kept in wasm memory (half per stream).
 */
export async function openMatrix(src, options = {}) {
  options = options ?? {};
  await ensureFormat('bpcells'); // only the BPCells module: a page reading matrices needs no other
  // Fetched together; a failure is reported for the first file in this order, so that a
  // directory without a `version` says so whatever answered first.
  // options.deferStorageOrder (HDF5 over async sources): storage_order is a string whose read costs
  // HDF5's whole global heap collection (64 KiB in files BPCells writes), and idxptr's length
  // already tells the order unless the matrix is square: it is then checked by the first read,
  // beside that read's data, instead of at open.
  const defer = options.deferStorageOrder === true;
  const first = await Promise.allSettled([
    src.readAll('version'),
    defer ? null : src.readAll('storage_order'),
    src.readAll('shape'),
    defer ? src.size('idxptr') : null,
  ]);
  const failed = first.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const [versionBytes, orderBytes, shapeBytes, ptrSize] = first.map((r) => r.value);
  const version = parseVersion(versionBytes, labelOf(src, 'version'));
  const shapeLabel = labelOf(src, 'shape');
  checkHeader(shapeBytes, 'u32', shapeLabel);
  if (shapeBytes.length !== HEADER + 8) {
    throw new BpcellsError(`${shapeLabel}: ${(shapeBytes.length - HEADER) / 4} entries, expected 2 (nrow, ncol)`, { file: shapeLabel });
  }
  const sdv = new DataView(shapeBytes.buffer, shapeBytes.byteOffset + HEADER, 8);
  const shape = [sdv.getUint32(0, true), sdv.getUint32(4, true)];
  const orderLabel = labelOf(src, 'storage_order');
  const ptrElem = version.format === 1 ? 4 : 8;
  // Deferred only where it saves open's bytes for a read of one round trip: packed matrices whose
  // seek tables open holds (below); otherwise the check runs during open, beside its other reads.
  let storageOrder = defer && version.packed ? orderFromIdxptr(shape, (ptrSize - HEADER) / ptrElem) : null;
  const orderCheck = storageOrder && deferredOrderCheck(src, storageOrder, orderLabel, shape);
  storageOrder ??= parseStorageOrder(orderBytes ?? (await src.readAll('storage_order')), orderLabel);

  const m = Object.create(Matrix.prototype);
  Object.assign(m, {
    source: src,
    version: version.text,
    format: version.format,
    packed: version.packed,
    dtype: version.dtype,
    shape,
    storageOrder,
  });
  const major = m.major;
  const minor = m.minor;

  const budget = options.prefetchBytes ?? DEFAULT_PREFETCH;
  if (!(budget >= 0)) throw new BpcellsError(`options.prefetchBytes must be >= 0, got ${budget}`);
  const ptr = new IdxptrReader(src, version.format === 1 ? 'u32' : 'u64');
  m._idxptr = ptr;

  // Second round, all independent: idxptr (with its last entry, the nnz that sizes the seek
  // tables), *_idx_offsets, data headers / unpacked arrays.
  const ptrBytes = HEADER + (major + 1) * ptr.file.elem;
  const jobs = [ptr.open(major + 1, budget > 0 && ptrBytes <= Math.min(budget, IDXPTR_WHOLE_MAX))];
  const valType = version.dtype;
  if (version.packed) {
    m._indexStream = new PackedStream(src, 'index', VARIANT.d1z, version.format);
    jobs.push(m._indexStream.openSmall());
    if (valType === 'u32') {
      m._valStream = new PackedStream(src, 'val', VARIANT.m1, version.format);
      jobs.push(m._valStream.openSmall());
    }
    // The packed words of the last range read stay in wasm memory (decoded there by the next reads
    // of that range), within the I/O cache's bound: half of it per stream.
    m._residentBytes = (options.cacheBytes ?? DEFAULT_RESIDENT) / 2;
    residentRegistry?.register(m, [m._indexStream, m._valStream].filter(Boolean));
  } else {
    m._indexFile = new ArrayFile(src, 'index', 'u32');
    jobs.push(m._indexFile.probe());
  }
  if (!m._valStream) {
    m._valFile = new ArrayFile(src, 'val', valType);
    jobs.push(m._valFile.probe());
  }
  await Promise.all(jobs);

  // BPCells writes idxptr = [0, 0] for a matrix with no columns (its issue #305); shape wins.
  let ptrCount = ptr.file.count;
  if (major === 0 && ptrCount === 2 && (await ptr.get(0, 2))[1] === 0) ptrCount = 1;
  if (ptrCount !== major + 1) {
    throw idxptrCountError(ptr.file.label, ptr.file.count, major, storageOrder);
  }
  m.nnz = await ptr.at(ptrCount - 1);
  const nnz = m.nnz;
  if (nnz > 0 && minor === 0) throw new BpcellsError(`${shapeLabel}: ${nnz} non-zeros but the inner dimension is 0`, { file: shapeLabel });

  m._arrayNames = [];
  if (version.packed) {
    const nchunks = Math.ceil(nnz / CHUNK);
    const streams = [m._indexStream, m._valStream].filter(Boolean);
    // options.holdStarts false: only the *_idx tables count and are held (*_starts place nothing, so
    // a read can fetch their entries beside its data; HDF5 over async sources, hdf5.js).
    const holdStarts = options.holdStarts !== false;
    const tableBytes = streams.reduce((s, st) => s + st.tableBytes(nchunks, holdStarts), 0);
    const whole = tableBytes <= budget;
    // Seek tables read by range: a column takes 2 round trips anyway, so storage_order is checked now.
    const checkNow = orderCheck && !whole ? orderCheck() : null;
    await Promise.all([...streams.map((st) => st.openTables(nchunks, whole, whole && holdStarts)), checkNow]);
    if (whole && orderCheck) m._orderCheck = orderCheck;
    for (const st of streams) {
      m._arrayNames.push(st.data.name, st.idx.name);
      if (st.starts) m._arrayNames.push(st.starts.name);
      if (st.offsetsFile) m._arrayNames.push(st.offsetsFile.name);
    }
  } else {
    m._arrayNames.push('index');
  }
  if (!m._valStream) m._arrayNames.push('val');
  for (const f of [m._indexFile, m._valFile].filter(Boolean)) {
    if (f.count !== nnz) {
      throw new BpcellsError(
        `${f.label}: ${f.count} entries but idxptr says ${nnz} non-zeros${f.count < nnz ? ' (truncated)' : ' (trailing data)'}`,
        { file: f.label },
      );
    }
  }
  return m;
}
