/// <reference lib="esnext.disposable" />
// ALP (Apache Parquet ALP encoding proposal) pages of f32 / f64 values.

export type AlpDtype = 'f32' | 'f64';
export type AlpArray<D extends AlpDtype> = D extends 'f32' ? Float32Array : Float64Array;
export type AlpPageBytes = Uint8Array | ArrayBufferView | ArrayBufferLike;

/** One vector's metadata (offset is a page byte offset). */
export interface AlpVectorInfo<D extends AlpDtype = AlpDtype> {
  index: number;
  firstValue: number;
  numValues: number;
  offset: number;
  /** AlpInfo + ForInfo + packed deltas + exception positions and values. */
  bytes: number;
  exponent: number;
  factor: number;
  exceptions: number;
  /** The smallest encoded integer (signed): a number for f32, a bigint for f64. */
  frameOfReference: D extends 'f32' ? number : bigint;
  bitWidth: number;
}

/** A vector whose metadata does not validate. */
export interface AlpVectorError {
  index: number;
  error: string;
}

export interface AlpPageInfo<D extends AlpDtype = AlpDtype> {
  dtype: D;
  /** 'draft': 8-byte header with a version byte (first byte 1); 'merged': 7-byte header (first byte 0). */
  layout: 'draft' | 'merged';
  headerBytes: 7 | 8;
  /** Draft layout only. */
  version?: number;
  compressionMode: number;
  integerEncoding: number;
  logVectorSize: number;
  vectorSize: number;
  numElements: number;
  numVectors: number;
  pageBytes: number;
  vectors: Array<AlpVectorInfo<D> | AlpVectorError>;
  /** False when some vector is malformed (see its `error`). */
  valid: boolean;
}

export interface AlpEncodeOptions {
  /** Default 'draft' (the layout of the spec draft and the test corpus). */
  layout?: 'draft' | 'merged';
  /** log2 of the values per vector, 3..15; default 10 (1024). */
  logVectorSize?: number;
  /** Force this exponent (and factor) for every vector instead of sampling. */
  exponent?: number;
  factor?: number;
}

/** A page held in wasm memory for repeated random access. */
export interface AlpPage<D extends AlpDtype> {
  readonly dtype: D;
  readonly length: number;
  readonly numVectors: number;
  inspect(): AlpPageInfo<D>;
  decode(): AlpArray<D>;
  decodeVector(k: number): AlpArray<D>;
  decodeRange(start: number, end: number): AlpArray<D>;
  /** Frees the wasm copy; later calls throw. */
  close(): void;
  /** The same as close(). */
  release(): void;
  /** The same as close(), for `using page = alp.open(bytes, 'f64')`. */
  [Symbol.dispose](): void;
}

/** Options of decode / decodeView: the dtype (pages do not record it), a value range, a size limit. */
export interface AlpDecodeOptions<D extends AlpDtype = AlpDtype> {
  dtype: D;
  /** First value (default 0). */
  start?: number;
  /** One past the last value (default: the page's size). */
  end?: number;
  /** Refuse (ERR_OUTPUT_LIMIT) a result larger than this many bytes, before allocating it. */
  maxOutputBytes?: number;
}

/** Values left in wasm memory (alp.decodeView); same rules as pco.decodeView. */
export interface AlpView<D extends AlpDtype = AlpDtype> {
  readonly dtype: D;
  /** Values in the view. */
  readonly length: number;
  readonly byteLength: number;
  /** Valid until release(); re-read after other numdecode calls (memory growth detaches old views). */
  readonly values: AlpArray<D>;
  readonly released: boolean;
  release(): void;
  /** @deprecated views are released: use release(). */
  close(): void;
  [Symbol.dispose](): void;
}

/** Decodes a page (or a range of it) into a fresh array; the second argument is the dtype or options. */
export function decode<D extends AlpDtype>(bytes: AlpPageBytes, dtypeOrOptions: D | AlpDecodeOptions<D>): AlpArray<D>;
/** Decodes into `out` (its class is the dtype); returns out.subarray(0, count). */
export function decodeInto<T extends Float32Array | Float64Array>(
  bytes: AlpPageBytes,
  out: T,
  options?: { start?: number; end?: number; maxOutputBytes?: number },
): T;
/** Decodes into wasm memory and returns a view; call release() (or `using`). */
export function decodeView<D extends AlpDtype>(bytes: AlpPageBytes, dtypeOrOptions: D | AlpDecodeOptions<D>): AlpView<D>;
export function decodeVector<D extends AlpDtype>(bytes: AlpPageBytes, dtype: D, k: number): AlpArray<D>;
export function decodeRange<D extends AlpDtype>(bytes: AlpPageBytes, dtype: D, start: number, end: number): AlpArray<D>;
export function inspect<D extends AlpDtype>(bytes: AlpPageBytes, dtype: D): AlpPageInfo<D>;
export function encode(values: Float32Array | Float64Array, options?: AlpEncodeOptions): Uint8Array;
export function open<D extends AlpDtype>(bytes: AlpPageBytes, dtype: D): AlpPage<D>;
