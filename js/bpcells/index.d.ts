/// <reference lib="esnext.disposable" />
// BPCells matrix directories: lazy, range-based reading (local directory, HTTP(S), custom source).

/** Value types of BPCells matrices: uint32, float32, float64. */
export type BpcellsDtype = 'u32' | 'f32' | 'f64';

export interface BpcellsValueArrayMap {
  u32: Uint32Array;
  f32: Float32Array;
  f64: Float64Array;
}

/** Requests and bytes fetched through a source, in total and per file (the js/io stats shape). */
export interface BpcellsStats {
  requests: number;
  bytes: number;
  /** Attempts repeated after a retryable failure (network error, 5xx, 408, 429, short answer). */
  retries: number;
  /** Waves of requests: requests started while no other was in flight (what a slow link multiplies by its latency). */
  roundTrips: number;
  files: Record<string, { requests: number; bytes: number }>;
}

/**
 * A custom source: the files of one matrix directory by name ("version", "idxptr",
 * "index_data", ...). size() returns null/undefined (or throws) for a missing file.
 * read() returns exactly the bytes [start, end).
 */
export interface BpcellsSourceObject {
  size(name: string): number | null | undefined | Promise<number | null | undefined>;
  read(name: string, start: number, end: number): Uint8Array | ArrayBuffer | Promise<Uint8Array | ArrayBuffer>;
}

export interface BpcellsOpenOptions {
  /**
   * The *_idx / index_starts seek tables are loaded whole at open when together at most this
   * many bytes (default 4 MiB); otherwise they are read by range with each read(). 0 = all lazy.
   * HDF5 over HTTP: default 256 KiB for the *_idx tables alone where 16 or more requests may be in
   * flight (Node), 0 where fewer (a browser's 6); see docs/bpcells.md.
   */
  prefetchBytes?: number;
  /** HTTP only: total bytes this source may download; beyond it requests fail. Default: no limit. */
  maxReadBytes?: number;
  /** @deprecated use maxReadBytes (still read, with a one-time warning). */
  maxBytes?: number;
  /** HTTP only: per-request timeout in ms (default 60000). */
  timeout?: number;
  /** HTTP only: aborts pending and future requests. */
  signal?: AbortSignal;
  /** HTTP only: a fetch implementation (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** HTTP only: extra request headers (e.g. Authorization). */
  headers?: Record<string, string>;
  /** HTTP only: extra attempts for network errors, 5xx, 408, 429 and short answers (default 3; 0 = off). */
  retries?: number;
  /** HTTP only: ms of the first backoff step (default 200; doubles per attempt, with jitter). */
  retryDelay?: number;
  /** HTTP only: cap in ms on backoff and on a server's Retry-After (default 10000). */
  maxRetryDelay?: number;
  /** Requests in flight per origin (default 64 in Node, 6 where a browser sends them: a page, a worker, an Electron renderer). */
  concurrency?: number;
  /**
   * Bound in bytes of the LRU cache of fetched ranges (default 16 MiB; 0 = none). Half of it per
   * packed stream also bounds the words of the last range read that stay in wasm memory for later
   * reads inside that range (released by close()).
   */
  cacheBytes?: number;
  /** > 0: fetches widen to aligned blocks of this many bytes (default 0 = exact ranges). */
  blockSize?: number;
  /** Merge threshold in bytes for ranges read together (default 65536). */
  gap?: number;
  /** HTTP only: send If-Range on later ranges (default: yes, except cross-origin in browsers). */
  ifRange?: boolean;
}

export interface BpcellsSlice<D extends BpcellsDtype = BpcellsDtype> {
  /**
   * end-start+1 offsets into index/val, starting at 0. Numbers, exact up to 2^53 (opening or
   * reading a matrix whose idxptr exceeds 2^53 throws instead of rounding).
   */
  idxptr: Float64Array;
  /** Row numbers (storage order 'col') or column numbers ('row'), ascending within each entry. */
  index: Uint32Array;
  val: BpcellsValueArrayMap[D];
}

/** Per-call options of a matrix's reads; unknown names are a TypeError. */
export interface BpcellsCallOptions {
  /** Abort the call (ERR_ABORTED); fetches under way finish in the background and stay cached. */
  signal?: AbortSignal;
}

/**
 * Caller-owned arrays for read(): each part given receives the slice at its start (pass a
 * subarray to write elsewhere); parts not given are fresh arrays. Exact classes: a wrong one is a
 * TypeError, one shorter than the slice a RangeError naming the length needed (nothing written).
 * If the read fails on damaged data, the arrays may hold part of the slice; an aborted read
 * writes nothing.
 */
export interface BpcellsInto<D extends BpcellsDtype = BpcellsDtype> {
  /** Room for end-start+1 offsets. */
  idxptr?: Float64Array;
  /** Room for the slice's entries (idxptr[end] - idxptr[start]). */
  index?: Uint32Array;
  /** Room for the slice's entries, in the matrix's value class. */
  val?: BpcellsValueArrayMap[D];
}

export interface BpcellsReadOptions<D extends BpcellsDtype = BpcellsDtype> extends BpcellsCallOptions {
  into?: BpcellsInto<D>;
}

/** Progress of a long call: `done` of `total` units ('rows' or 'columns' of the storage axis). */
export interface BpcellsProgress {
  done: number;
  total: number;
  unit: 'rows' | 'columns';
}

/** Options of readColumns / readRows: a scan across the storage order reports each block. */
export interface BpcellsAxisOptions<D extends BpcellsDtype = BpcellsDtype> extends BpcellsReadOptions<D> {
  onProgress?: (progress: BpcellsProgress) => void;
}

/** Options of readColumnsView / readRowsView (no `into`: the view is in wasm memory). */
export interface BpcellsAxisViewOptions extends BpcellsCallOptions {
  onProgress?: (progress: BpcellsProgress) => void;
}

export interface BpcellsBlocksOptions extends BpcellsCallOptions {
  /** Storage-axis positions (columns for 'col', rows for 'row') per block; default: about 2^20 entries a block. */
  size?: number;
  onProgress?: (progress: BpcellsProgress) => void;
}

/** One block of blocks(): positions [start, end) of the storage axis, as read(start, end) returns them. */
export interface BpcellsBlock<D extends BpcellsDtype = BpcellsDtype> extends BpcellsSlice<D> {
  start: number;
  end: number;
}

export interface BpcellsDenseOptions extends BpcellsCallOptions {
  /** Most bytes data may have (default 2^24 values of the matrix dtype); beyond it ERR_OUTPUT_LIMIT. */
  maxOutputBytes?: number;
  /** @deprecated use maxOutputBytes (maxCells counts values, not bytes; warns once). */
  maxCells?: number;
}

/** toDense(): an N-d block as everywhere in numdecode (docs/vocabulary.md), C order. */
export interface BpcellsDense<D extends BpcellsDtype = BpcellsDtype> {
  data: BpcellsValueArrayMap[D];
  shape: [number, number];
  /** Elements between neighbours along each axis: [shape[1], 1]. */
  stride: [number, number];
}

/**
 * Matrix.readView(): index and val decoded into wasm memory, read in place (no copy). `index` and
 * `val` are valid until release(); any later numdecode call may grow wasm memory, which detaches
 * typed arrays taken earlier (they read as length 0): read the getters again for fresh ones.
 * After release() the getters throw. A view never released keeps its memory.
 */
export interface BpcellsSliceView<D extends BpcellsDtype = BpcellsDtype> {
  readonly dtype: D;
  /** Entries in the slice. */
  readonly nnz: number;
  /** Elements of index and of val: the same as nnz. */
  readonly length: number;
  /** Bytes of wasm memory the view holds (index + val). */
  readonly byteLength: number;
  /** end-start+1 offsets from 0 (a plain JS array, not in wasm memory). */
  readonly idxptr: Float64Array;
  readonly index: Uint32Array;
  readonly val: BpcellsValueArrayMap[D];
  readonly released: boolean;
  /** Frees index and val. Safe to call more than once. */
  release(): void;
  /** @deprecated views are released, handles closed: use release() (close() releases too, warning once). */
  close(): void;
  /** The same as release(), for `using view = await m.readView()`. */
  [Symbol.dispose](): void;
}

/** Live views from readView() not yet released, and the wasm bytes they hold. */
export interface BpcellsViewStats {
  live: number;
  bytes: number;
}

/** How many readView() views are live and how many bytes of wasm memory they hold. */
export function viewStats(): BpcellsViewStats;

/** Matrix.inspect(): the header facts. */
export interface BpcellsMatrixInfo<D extends BpcellsDtype = BpcellsDtype> {
  version: string;
  format: 1 | 2;
  packed: boolean;
  dtype: D;
  shape: [number, number];
  storageOrder: 'col' | 'row';
  nnz: number;
  /** HDF5 matrices: the group path and the file's name. */
  group?: string;
  fileName?: string;
}

export interface BpcellsMatrix<D extends BpcellsDtype = BpcellsDtype> {
  /** The version string, e.g. "packed-uint-matrix-v2". */
  readonly version: string;
  /** 1 (idxptr u32, no *_idx_offsets) or 2. */
  readonly format: 1 | 2;
  readonly packed: boolean;
  readonly dtype: D;
  /** Logical [nrow, ncol], for both storage orders. */
  readonly shape: [number, number];
  /** 'col': compressed sparse columns; 'row': compressed sparse rows. */
  readonly storageOrder: 'col' | 'row';
  /** Number of stored entries (idxptr's last value). */
  readonly nnz: number;
  /** Length of the storage axis: ncol for 'col', nrow for 'row'. */
  readonly major: number;
  /** Length of the other axis (index values are below it). */
  readonly minor: number;
  /** Live request/byte counts of this matrix's source. */
  readonly stats: BpcellsStats;
  /** What the matrix is, without reading entries (plain, JSON-safe data). */
  inspect(): BpcellsMatrixInfo<D>;
  /**
   * storageOrder once checked against the file's storage_order string. Over HTTP in Node open
   * may take the order from idxptr's length and leave the string to the first read; this
   * fetches it now (resolves at once where open read it). A contradiction rejects with the
   * BpcellsError the first read would give.
   */
  checkedStorageOrder(): Promise<'col' | 'row'>;
  /** Row names, or [] when the matrix has none. Fetched on first call. */
  rowNames(options?: BpcellsCallOptions): Promise<string[]>;
  colNames(options?: BpcellsCallOptions): Promise<string[]>;
  /**
   * Entries of storage-axis positions [start, end) (default: all). A range outside the matrix is
   * a RangeError; options.signal rejects the call with ERR_ABORTED; options.into gives arrays
   * to fill instead of fresh ones (the result then holds their filled subarrays).
   */
  read(start?: number, end?: number, options?: BpcellsReadOptions<D>): Promise<BpcellsSlice<D>>;
  /**
   * As read(), with index and val left in wasm memory: the fastest whole-matrix read. Call
   * release() when done (or `using`).
   */
  readView(start?: number, end?: number, options?: BpcellsCallOptions): Promise<BpcellsSliceView<D>>;
  /**
   * Entries of columns [start, end) (default: all) in CSC form: idxptr (end-start+1 offsets from
   * 0), index (row numbers, ascending within each column), val. Col-major: read(). Row-major: a
   * full scan of the matrix (every row is read once, in blocks; onProgress after each), since any
   * row may hold an entry of the columns asked for.
   */
  readColumns(start?: number, end?: number, options?: BpcellsAxisOptions<D>): Promise<BpcellsSlice<D>>;
  /** Entries of rows [start, end) in CSR form (index: column numbers). Row-major: read(); col-major: a full scan. */
  readRows(start?: number, end?: number, options?: BpcellsAxisOptions<D>): Promise<BpcellsSlice<D>>;
  /** readColumns() as a view in wasm memory (readView's kind): release() it. */
  readColumnsView(start?: number, end?: number, options?: BpcellsAxisViewOptions): Promise<BpcellsSliceView<D>>;
  /** readRows() as a view in wasm memory (readView's kind): release() it. */
  readRowsView(start?: number, end?: number, options?: BpcellsAxisViewOptions): Promise<BpcellsSliceView<D>>;
  /**
   * The whole matrix in sparse blocks along the storage order:
   * `for await (const { start, end, idxptr, index, val } of m.blocks({ size: 1000 }))`.
   */
  blocks(options?: BpcellsBlocksOptions): AsyncGenerator<BpcellsBlock<D>, void, undefined>;
  /**
   * Dense copy of storage-axis positions [start, end): shape [nrow, end-start] ('col') or
   * [end-start, ncol] ('row'), data in C (row-major) order, stride [shape[1], 1]. Refuses more
   * than maxOutputBytes (default 2^24 values) with ERR_OUTPUT_LIMIT.
   */
  toDense(start?: number, end?: number, options?: BpcellsDenseOptions): Promise<BpcellsDense<D>>;
  /** Byte size of every file of the directory (one size query each). */
  fileSizes(): Promise<Record<string, number>>;
  /**
   * Releases open files and cached bytes. A directory matrix reopens its files if read again;
   * an HDF5 matrix cannot be read afterwards.
   */
  close(): void;
  /** The same as close(), for `using m = await bpcells.open(...)`. */
  [Symbol.dispose](): void;
}

/** Error raised for any problem with a matrix; `file` names the file or dataset when known. */
export { BpcellsError } from '../errors.js';

/** A matrix directory's files by name: what io.openDirectory() returns (a RangeDirectory) has this shape. */
export interface BpcellsSource {
  readonly kind: 'local' | 'http' | 'object';
  readonly stats: BpcellsStats;
  size(name: string): Promise<number>;
  read(name: string, start: number, end: number): Promise<Uint8Array>;
  readAll(name: string): Promise<Uint8Array>;
  /** Closes file descriptors and drops cached bytes. */
  close?(): void;
}

/** @deprecated A RangeDirectory under its old name: use io.openDirectory(dir, options). */
export class LocalDirSource implements BpcellsSource {
  constructor(dir: string, options?: BpcellsOpenOptions);
  readonly kind: 'local';
  readonly stats: BpcellsStats;
  size(name: string): Promise<number>;
  read(name: string, start: number, end: number): Promise<Uint8Array>;
  readAll(name: string): Promise<Uint8Array>;
}

/** @deprecated A RangeDirectory under its old name: use io.openDirectory(baseUrl, options). */
export class HttpSource implements BpcellsSource {
  constructor(baseUrl: string | URL, options?: BpcellsOpenOptions);
  readonly kind: 'http';
  readonly stats: BpcellsStats;
  /** true/false once a ranged request has been answered with 206/200. */
  readonly rangeSupported: boolean | undefined;
  url(name: string): string;
  size(name: string): Promise<number>;
  read(name: string, start: number, end: number): Promise<Uint8Array>;
  readAll(name: string): Promise<Uint8Array>;
}

/** @deprecated A RangeDirectory under its old name: use io.openDirectory(obj, options). */
export class ObjectSource implements BpcellsSource {
  constructor(obj: BpcellsSourceObject, options?: BpcellsOpenOptions);
  readonly kind: 'object';
  readonly stats: BpcellsStats;
  size(name: string): Promise<number>;
  read(name: string, start: number, end: number): Promise<Uint8Array>;
  readAll(name: string): Promise<Uint8Array>;
}

/** @deprecated io.openDirectory(source, options); a RangeDirectory given is returned as it is. */
export function toSource(source: string | URL | BpcellsSourceObject | BpcellsSource, options?: BpcellsOpenOptions): BpcellsSource;

/**
 * One HDF5 file given as an object: size() and read(start, end) (read taking two arguments tells
 * it apart from a directory object; with options.group any {size, read} object is a file).
 */
export interface BpcellsFileObject {
  size(): number | Promise<number>;
  read(start: number, end: number): Uint8Array | ArrayBuffer | Promise<Uint8Array | ArrayBuffer>;
}

/** An HDF5 file holding BPCells matrix groups (write_matrix_hdf5). */
export type BpcellsHdf5Input = string | URL | Blob | ArrayBuffer | ArrayBufferView | BpcellsFileObject;

export interface BpcellsHdf5Options extends BpcellsOpenOptions {
  /** HDF5 only: the matrix group ('mat', 'a/counts'); default: the file's only matrix group. */
  group?: string;
  /**
   * HDF5 only, Node: how long one synchronous HDF5 call may run, in ms (default 30000; over async
   * sources, the calls run between two fetches together). A damaged file can make HDF5 loop; the
   * call then fails with a BpcellsError and h5wasm is reloaded.
   */
  hdf5TimeLimit?: number;
  /** HDF5 only: block size (bytes) of the lazy block cache for async sources (default 1024). */
  blockSize?: number;
  /**
   * HDF5: bytes the block cache may keep (default 64 MiB); half of it per packed stream also bounds
   * the words of the last range read kept in wasm memory (default 8 MiB each when not given).
   */
  cacheBytes?: number;
  /** I/O retries per request (js/io), default 3. */
  retries?: number;
}

/** A matrix read from an HDF5 group: the Matrix API plus where it came from and close(). */
export interface BpcellsHdf5Matrix<D extends BpcellsDtype = BpcellsDtype> extends BpcellsMatrix<D> {
  /** The group path, e.g. "/mat". */
  readonly group: string;
  /** The file's name (path, URL, "File x.h5", "buffer of N bytes"). */
  readonly fileName: string;
  /** Releases the HDF5 file handle; the matrix cannot be read afterwards. */
  close(): void;
}

/** One matrix group found by list(); `error` instead of the fields when the group is damaged. */
export interface BpcellsGroupInfo {
  group: string;
  version?: string;
  shape?: [number, number];
  storageOrder?: 'col' | 'row';
  nnz?: number;
  error?: string;
}

/**
 * Opens a matrix: a directory (local path, http(s) base URL, URL object, {size(name), read(name,
 * start, end)} object or a source) or a group of an HDF5 file (local path, URL, File/Blob,
 * ArrayBuffer/typed array, {size(), read(start, end)}), told apart by the HDF5 signature. h5wasm
 * is loaded only for HDF5 files.
 */
export function open(source: Blob | ArrayBuffer | ArrayBufferView | BpcellsFileObject, options?: BpcellsHdf5Options): Promise<AnyBpcellsHdf5Matrix>;
export function open(
  source: string | URL | BpcellsSourceObject | BpcellsSource,
  options?: BpcellsHdf5Options,
): Promise<AnyBpcellsMatrix | AnyBpcellsHdf5Matrix>;

/** A matrix of one of the three value types: `if (m.dtype === 'u32')` narrows it to BpcellsMatrix<'u32'>. */
export type AnyBpcellsMatrix = { [D in BpcellsDtype]: BpcellsMatrix<D> }[BpcellsDtype];
/** An HDF5 matrix of one of the three value types, narrowed by its dtype like AnyBpcellsMatrix. */
export type AnyBpcellsHdf5Matrix = { [D in BpcellsDtype]: BpcellsHdf5Matrix<D> }[BpcellsDtype];

/**
 * Every BPCells matrix group (a group with a `version` attribute) of an HDF5 file. A source that is
 * not an HDF5 file (a matrix directory) is a BpcellsError with `notHdf5: true`.
 */
export function list(source: BpcellsHdf5Input, options?: BpcellsOpenOptions & { retries?: number }): Promise<BpcellsGroupInfo[]>;

export type Matrix = BpcellsMatrix;
export const Matrix: { prototype: BpcellsMatrix };

/** What readSlice and readNames return beside their arrays: the matrix's description (plain, cloneable values). */
export interface BpcellsOneShotInfo {
  version: string;
  shape: [number, number];
  storageOrder: 'col' | 'row';
  nnz: number;
  dtype: BpcellsDtype;
  group?: string;
  stats: { requests: number; bytes: number };
}

/**
 * One call that opens a matrix, reads positions [start, end) along its storage order (default:
 * all) and closes it, returning plain values: the worker pool's BPCells job
 * (`pool.run({ format: 'bpcells', op: 'readSlice', args: [source, options, start, end] })`).
 * A few matrices opened from a path or URL stay open per thread for later calls.
 */
export function readSlice(
  source: BpcellsHdf5Input | BpcellsSourceObject,
  options?: BpcellsHdf5Options,
  start?: number,
  end?: number,
): Promise<BpcellsOneShotInfo & BpcellsSlice>;
/** The same for the row and column names. */
export function readNames(
  source: BpcellsHdf5Input | BpcellsSourceObject,
  options?: BpcellsHdf5Options,
): Promise<BpcellsOneShotInfo & { rowNames: string[]; colNames: string[] }>;
