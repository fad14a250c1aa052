// numdecode/parquet: Parquet files whose FLOAT / DOUBLE columns hold ALP pages (encoding 10).
import type { FileInput, IoOptions } from './io/index.js';

export { ParquetError, NumdecodeError, CODES } from './errors.js';

export type ParquetInput = FileInput;

export interface ParquetReadOptions extends IoOptions {
  /**
   * Top-level column names, or the dotted path of a FLOAT / DOUBLE leaf inside a struct ("point.x")
   * or a list ("tags.list.element") (default: all top-level columns).
   */
  columns?: string[];
  /** First row (default 0). */
  rowStart?: number;
  /** One past the last row (default: the file's row count). */
  rowEnd?: number;
  /**
   * Column name -> the caller's Float32Array (FLOAT) / Float64Array (DOUBLE), with room for the
   * selected rows: the column's values are written there (result.values is a view of it). Or
   * `{values?, valid?}`: `valid` (a byte a row) receives the validity too, 1 present, 0 null
   * (result.valid is a view of it when the column has nulls, else null as always), so a read
   * repeated into the same arrays allocates nothing.
   */
  into?: Record<string, Float32Array | Float64Array | { values?: Float32Array | Float64Array; valid?: Uint8Array }>;
  /**
   * A numdecode/worker pool: the column chunks (row groups x columns) decode in its workers. A
   * local path is read by the workers; other sources send each chunk's bytes. With shared memory
   * (Node, cross-origin-isolated pages) the values arrays are backed by a SharedArrayBuffer.
   */
  pool?: { run(job: { format: string; op: string; args?: unknown[] }, options?: { signal?: AbortSignal }): Promise<any> };
  /**
   * Refuse (ParquetError ERR_OUTPUT_LIMIT) a read whose FLOAT / DOUBLE values for the selected rows
   * would be more bytes than this, before anything is allocated or fetched (a footer may claim any
   * number of rows).
   */
  maxOutputBytes?: number;
}

/** What crossed the wire for a call: requests, body bytes, and round trips (waves of requests sent together). */
export interface ParquetStats {
  requests: number;
  bytes: number;
  roundTrips: number;
}

/** A flat FLOAT column (kind 'float', type 'FLOAT'): one slot per row, 0 at a null. */
export interface ParquetFloat32Column {
  kind: 'float';
  type: 'FLOAT';
  values: Float32Array;
  /** 1 = present; null when the selected rows hold no null (NaN is a value, never a null). */
  valid: Uint8Array | null;
}

/** A flat DOUBLE column (kind 'float', type 'DOUBLE'): one slot per row, 0 at a null. */
export interface ParquetFloat64Column {
  kind: 'float';
  type: 'DOUBLE';
  values: Float64Array;
  valid: Uint8Array | null;
}

/** A flat FLOAT / DOUBLE column: `kind === 'float'`, then `type` narrows `values`. */
export type ParquetFloatColumn = ParquetFloat32Column | ParquetFloat64Column;

/** Any other column, exactly as hyparquet reads it. */
export interface ParquetOtherColumn {
  kind: 'other';
  type: string;
  values: unknown[];
  valid: null;
}

interface ParquetListColumnBase {
  kind: 'list';
  /** Per element, 1 = present; null when no element is null. */
  valid: Uint8Array | null;
  /** numRows + 1 element offsets. */
  offsets: Int32Array;
  /** Per row, 0 = the list itself is null (an empty list is 1 with no elements); null when none is. */
  rowValid: Uint8Array | null;
}

/**
 * A FLOAT / DOUBLE leaf inside a list ("tags.list.element"): row r's elements are
 * values[offsets[r]] ... values[offsets[r + 1] - 1]; one slot per element, 0 at a null element.
 */
export type ParquetListColumn =
  | (ParquetListColumnBase & { type: 'FLOAT'; values: Float32Array })
  | (ParquetListColumnBase & { type: 'DOUBLE'; values: Float64Array });

/** Discriminated on `kind` ('float' | 'list' | 'other'); for 'float' and 'list', `type` narrows `values`. */
export type ParquetColumn = ParquetFloatColumn | ParquetListColumn | ParquetOtherColumn;

export interface ParquetReadResult {
  /** rowEnd - rowStart */
  numRows: number;
  columns: Record<string, ParquetColumn>;
  /** What this call fetched from its source (HTTP, files, Blobs, user sources); cache hits are not counted. */
  stats: ParquetStats;
}

/** readView's options: read()'s without `into` and `pool` (the view's memory is the ALP module's, on this thread). */
export type ParquetReadViewOptions = Omit<ParquetReadOptions, 'into' | 'pool'>;

/**
 * A FLOAT / DOUBLE column as a zero-copy view in the ALP module's memory (readView). `values` is
 * valid until release(); arrays taken from it earlier are detached by any later numdecode call that
 * grows the module's memory (read `values` again). While a view is live, releaseMemory() of ALP
 * refuses (ERR_IN_USE).
 */
export type ParquetFloatColumnView = (
  | { type: 'FLOAT'; dtype: 'f32'; readonly values: Float32Array }
  | { type: 'DOUBLE'; dtype: 'f64'; readonly values: Float64Array }
) & {
  kind: 'float';
  /** 1 = present, an ordinary JS array; null when the selected rows hold no null. */
  valid: Uint8Array | null;
  /** Values in the view (the selected rows). */
  readonly length: number;
  readonly byteLength: number;
  readonly released: boolean;
  /** Frees this column's memory; safe to call more than once. */
  release(): void;
  [Symbol.dispose](): void;
};

export interface ParquetReadViewResult {
  numRows: number;
  columns: Record<string, ParquetFloatColumnView>;
  stats: ParquetStats;
  /** Releases every column's view. */
  release(): void;
  /** The same as release(), for `using r = await readView(…)` (where the engine has Symbol.dispose). */
  [Symbol.dispose](): void;
}

export interface ParquetAlpVector {
  index: number;
  numValues?: number;
  bytes?: number;
  exponent?: number;
  factor?: number;
  exceptions?: number;
  bitWidth?: number;
  /** Set when this vector's metadata does not validate. */
  error?: string;
}

export interface ParquetAlpPageInfo {
  layout?: 'draft' | 'merged';
  headerBytes?: 7 | 8;
  logVectorSize?: number;
  vectorSize?: number;
  numElements?: number;
  numVectors?: number;
  exceptions?: number;
  /** Payload bits per non-null value. */
  bitsPerValue?: number;
  meanBitWidth?: number;
  valid?: boolean;
  vectors?: ParquetAlpVector[];
  /** Set when the ALP header itself is unreadable. */
  error?: string;
}

export interface ParquetPageInfo {
  type: 'dictionary' | 'data v1' | 'data v2' | 'index';
  /** File offset of the page header. */
  offset: number;
  headerBytes: number;
  compressedBytes: number;
  uncompressedBytes: number;
  encoding?: string;
  numValues?: number;
  numNulls?: number;
  numRows?: number;
  /** Data page v2: whether the value section is compressed. */
  compressed?: boolean;
  alp?: ParquetAlpPageInfo;
}

/** A column chunk as the footer describes it (no page read). */
export interface ParquetFooterChunk {
  column: string;
  type: string;
  codec: string;
  /** From the footer; an id hyparquet does not name is 'ALP' on FLOAT / DOUBLE chunks (inspect() confirms from the pages), else 'UNKNOWN'. */
  encodings: string[];
  numValues: number;
  compressedBytes: number;
  uncompressedBytes: number;
  offset: number;
  offsetIndex: boolean;
  columnIndex: boolean;
}

export interface ParquetChunkInfo extends ParquetFooterChunk {
  pages: ParquetPageInfo[];
}

export interface ParquetSchemaColumn {
  /** The leaf's dotted path. */
  name: string;
  type?: string;
  repetition?: string;
  logicalType?: string;
  convertedType?: string;
}

export interface ParquetFileInfo {
  file: string;
  size: number;
  numRows: number;
  createdBy?: string;
  version?: number;
  schema: ParquetSchemaColumn[];
  rowGroups: Array<{ index: number; numRows: number; totalByteSize: number; columns: ParquetChunkInfo[] }>;
  stats: ParquetStats;
}

/** The options of one read through an open file (where to read from was given to open()). */
export type ParquetFileReadOptions = Pick<ParquetReadOptions, 'columns' | 'rowStart' | 'rowEnd' | 'into' | 'pool' | 'maxOutputBytes'> & {
  /** Stops this read (the file stays open). */
  signal?: AbortSignal;
};

/** An open Parquet file: the footer read once; each read() fetches column chunks only. */
export interface ParquetFile {
  /** The path, URL or source name. */
  readonly file: string;
  readonly size: number;
  readonly numRows: number;
  readonly createdBy?: string;
  readonly version?: number;
  /** One entry per leaf column. */
  readonly schema: ParquetSchemaColumn[];
  /** The names read() accepts in `columns`: top-level fields, then FLOAT / DOUBLE leaves in structs and lists. */
  readonly columns: string[];
  readonly rowGroups: Array<{ index: number; numRows: number; totalByteSize: number; columns: ParquetFooterChunk[] }>;
  /** What crossed the wire since open() (the footer included). */
  readonly stats: ParquetStats;
  readonly closed: boolean;
  read(options?: ParquetFileReadOptions): Promise<ParquetReadResult>;
  /** readView() on the open file. */
  readView(options?: Omit<ParquetFileReadOptions, 'into' | 'pool'>): Promise<ParquetReadViewResult>;
  /** inspect() without reading the footer again. */
  inspect(options?: ParquetInspectOptions): Promise<ParquetFileInfo>;
  /** readPages() on the open file: chunks already fetched (by inspect() or read()) cost no request; stats count this call's. */
  readPages(options: Pick<ParquetPagesOptions, 'column' | 'rowStart' | 'rowEnd'>): Promise<ParquetPagesResult>;
  /** Ends the file's reads (a local file's descriptor is closed); later calls fail with ERR_CLOSED. */
  close(): void;
  [Symbol.dispose](): void;
}

/** Opens a file for several reads: costs the footer only (one request over HTTP for most files). */
export function open(file: ParquetInput, options?: IoOptions): Promise<ParquetFile>;
/** Reads columns; FLOAT / DOUBLE columns as typed arrays with a validity mask. */
export function read(file: ParquetInput, options?: ParquetReadOptions): Promise<ParquetReadResult>;
/**
 * As read(), each FLOAT / DOUBLE column as a view in the ALP module's memory: its pages decode into
 * their place there, nothing is copied out. Every selected column must be a FLOAT / DOUBLE column
 * of one value per row, top level or in a struct ("point.x"), not a leaf inside a list (else a
 * ParquetError ERR_UNSUPPORTED naming it). A column named twice is read once.
 */
export function readView(file: ParquetInput, options?: ParquetReadViewOptions): Promise<ParquetReadViewResult>;
export interface ParquetInspectOptions {
  /** Only these columns' chunks are read and listed (names as read() takes them, or leaf paths); default all. */
  columns?: string[];
}

/** Schema, row groups and every page of every column chunk (reads all column chunks, or those of options.columns). */
export function inspect(file: ParquetInput, options?: IoOptions & ParquetInspectOptions): Promise<ParquetFileInfo>;

export interface ParquetPagesOptions extends IoOptions {
  /** A FLOAT / DOUBLE column: top-level, or "struct.leaf". */
  column: string;
  rowStart?: number;
  rowEnd?: number;
}

/** One data page: an ALP payload (for alp.decode) or decoded values, with its rows. */
export interface ParquetColumnPage {
  rowGroup: number;
  /** The data page's index in its column chunk. */
  page: number;
  /** File row of the page's first row. */
  rowStart: number;
  numRows: number;
  encoding: string;
  /** ALP pages: the payload of the non-null values (alp.decode(bytes, dtype)). */
  alp?: Uint8Array;
  /** Other pages: one value per row, 0 at nulls. */
  values?: Float32Array | Float64Array;
  /** Per row of the page, 1 = present; null when the page has no null. */
  valid: Uint8Array | null;
}

/** What readPages() gives: the column's dtype, its pages, and what the call fetched. */
export interface ParquetPagesResult {
  dtype: 'f32' | 'f64';
  pages: ParquetColumnPage[];
  stats: ParquetStats;
}

/** The pages holding rows [rowStart, rowEnd) of one column, for decoding elsewhere (a Web Worker). */
export function readPages(file: ParquetInput, options: ParquetPagesOptions): Promise<ParquetPagesResult>;
