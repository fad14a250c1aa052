/// <reference lib="esnext.disposable" />
import type { DecodedArray, Dtype, DtypeArrayMap } from './dtypes.js';

export interface PcoFormatVersion {
  major: number;
  minor: number;
}

export interface PcoMode {
  name: 'Classic' | 'IntMult' | 'FloatMult' | 'FloatQuant' | 'Dict';
  /** IntMult base (a bigint for u64/i64/f64 files) or FloatMult base (a number). */
  base?: number | bigint;
  /** FloatQuant: number of mantissa bits dropped. */
  k?: number;
  /** Dict: number of distinct values. */
  dictLength?: number;
}

export interface PcoDelta {
  name: 'None' | 'Consecutive' | 'Lookback' | 'Conv1';
  order?: number;
  secondaryUsesDelta?: boolean;
  windowNLog?: number;
  stateNLog?: number;
  quantization?: number;
  /** Conv1 bias (a 64-bit field whatever the dtype). */
  bias?: bigint;
  weights?: number[];
}

export interface PcoBin {
  weight: number;
  /** A bigint for 64-bit latents (u64, i64, f64 files), else a number. */
  lower: number | bigint;
  offsetBits: number;
}

export interface PcoLatentVar {
  key: 'delta' | 'primary' | 'secondary';
  /** Width of the latents: 8, 16, 32 or 64. */
  latentBits: number;
  ansSizeLog: number;
  bins: PcoBin[];
}

export interface PcoChunkInfo {
  dtype: Dtype;
  /** Values in the chunk (standalone files; a wrapped chunk's pages carry their own counts). */
  n?: number;
  /** [start, end) byte offsets of the chunk in the file (standalone files). */
  byteRange?: [number, number];
  mode: PcoMode;
  delta: PcoDelta;
  latentVars: PcoLatentVar[];
}

export interface PcoFileInfo {
  formatVersion: PcoFormatVersion;
  standaloneVersion: number;
  /** The dtype the file declares for all its chunks, or null when it declares none. */
  uniformDtype: Dtype | null;
  /** The writer's estimate of the value count (standalone version 2+), or null. */
  nHint: number | null;
  /** Values in all chunks. */
  n: number;
  chunks: PcoChunkInfo[];
}

/** One chunk's values; a union over dtypes, so that checking `dtype` narrows `values`. */
export type PcoChunk<D extends Dtype = Dtype> = { [K in D]: { dtype: K; values: DtypeArrayMap[K] } }[D];

/** Options of the standalone decoders. */
export interface PcoDecodeOptions {
  /** Refuse files that would decode to more bytes than this (default: no limit). */
  maxOutputBytes?: number;
}

/** decode / decodeView options: the expected dtype narrows the result and is checked at run time. */
export interface PcoTypedDecodeOptions<D extends Dtype = Dtype> extends PcoDecodeOptions {
  dtype?: D;
}

/** Any bytes: a Uint8Array (Node Buffers included), another ArrayBufferView or an ArrayBuffer. */
export type PcoBytes = ArrayBufferView | ArrayBufferLike;

/**
 * Decodes a standalone Pco file into one typed array of its dtype. A file without chunks gives
 * an empty array of its uniform dtype, or an empty Uint8Array when it declares none.
 * Throws if chunks differ in dtype (use decodeChunks).
 */
export function decode<D extends Dtype>(bytes: PcoBytes, options: PcoTypedDecodeOptions<D> & { dtype: D }): DtypeArrayMap[D];
export function decode(bytes: PcoBytes, options?: PcoDecodeOptions): DecodedArray;
/** The dtype the file decodes to, from its metadata: null when it declares none, 'mixed' when chunks differ. */
export function dtypeOf(bytes: PcoBytes): Dtype | 'mixed' | null;
/**
 * Decodes into the caller's typed array, which must be of the file's dtype (the class decode()
 * would return) and hold all its values. Returns out.subarray(0, count). No array is allocated.
 */
export function decodeInto<T extends DecodedArray>(bytes: PcoBytes, out: T, options?: PcoDecodeOptions): T;
/** Decodes each chunk in its own dtype. */
export function decodeChunks(bytes: PcoBytes, options?: PcoDecodeOptions): PcoChunk[];
/** Describes the file: versions, dtype, and per chunk its mode, delta encoding and bins. */
export function inspect(bytes: PcoBytes): PcoFileInfo;

export interface PcoWrappedChunk<D extends Dtype = Dtype> {
  /** The chunk metadata, as in inspect() (without byteRange). */
  info: PcoChunkInfo;
  /** Decodes one page of n values (n as recorded by the container). */
  decodePage(pageBytes: PcoBytes, n: number): DtypeArrayMap[D];
}

export interface PcoWrappedReader {
  formatVersion: PcoFormatVersion;
  /** Opens one chunk from its metadata bytes; the container supplies the dtype. */
  chunk<D extends Dtype>(metaBytes: PcoBytes, dtype: D): PcoWrappedChunk<D>;
}

export const wrapped: {
  /** Reads a wrapped-format header (the bytes are copied). */
  open(headerBytes: PcoBytes): PcoWrappedReader;
};

/** A mode for the encoder: 'auto', or as inspect() reports it ({ name: 'IntMult', base }), or with a camelCase kind. */
export type PcoModeSpec =
  | 'auto'
  | 'classic'
  | 'dict'
  | { kind: 'auto' | 'classic' | 'dict' }
  | { kind: 'intMult'; base: number | bigint }
  | { kind: 'floatMult'; base: number }
  | { kind: 'floatQuant'; k: number }
  | PcoMode;

/** A delta encoding for the encoder: 'auto', or as inspect() reports it, or with a camelCase kind. */
export type PcoDeltaSpec =
  | 'auto'
  | 'noOp'
  | 'none'
  | 'lookback'
  | { kind: 'auto' | 'noOp' | 'none' | 'lookback' }
  | { kind: 'consecutive'; order: number }
  | { kind: 'conv1'; order: number }
  | PcoDelta;

export interface PcoEncodeOptions {
  /** 0..12 (default 8). */
  level?: number;
  /** Default 'auto': chosen as pcodec chooses. */
  mode?: PcoModeSpec;
  /** Default 'auto': chosen as pcodec chooses. */
  delta?: PcoDeltaSpec;
  /** The values' dtype: needed for an Array, or 'f16' for a Uint16Array of half-precision bits. */
  dtype?: Dtype;
}

export interface PcoEncodeStandaloneOptions extends PcoEncodeOptions {
  /** Chunks of at most this many values, as equal as possible (default 2^18, at most 2^24). */
  chunkSize?: number;
  /** Exactly these chunk sizes (summing to the value count). */
  chunkSizes?: readonly number[];
}

export interface PcoEncodeWrappedOptions extends PcoEncodeOptions {
  /** Pages of at most this many values, as equal as possible (default 2^18). */
  pageSize?: number;
  /** Exactly these page sizes (summing to the value count). */
  pageSizes?: readonly number[];
}

export interface PcoWrappedEncoding {
  dtype: Dtype;
  header: Uint8Array;
  meta: Uint8Array;
  pages: { n: number; bytes: Uint8Array }[];
}

/** Encodes values as a standalone Pco file (format 4.1, standalone v3). Loads the encoder module on first use. */
export function encode(values: ArrayBufferView | readonly (number | bigint)[], options?: PcoEncodeStandaloneOptions): Promise<Uint8Array>;
/** Encodes values as one wrapped-format chunk (header, chunk meta, pages) for a container. */
export function encodeWrapped(values: ArrayBufferView | readonly (number | bigint)[], options?: PcoEncodeWrappedOptions): Promise<PcoWrappedEncoding>;

/**
 * A zero-copy view of decoded values in wasm memory (pco.decodeView). `values` is valid until
 * release(); typed arrays taken from it earlier are detached (length 0) by any later numdecode
 * call that grows wasm memory (read `values` again for a fresh one). After release(), `values`
 * throws and arrays taken earlier must not be used (their memory is reused).
 */
interface PcoViewMembers {
  /** Values in the view. */
  readonly length: number;
  readonly byteLength: number;
  readonly released: boolean;
  /** Frees the memory; safe to call more than once. */
  release(): void;
  /** @deprecated views are released: use release(). */
  close(): void;
  /** The same as release(), for `using view = pco.decodeView(bytes)` (where the engine has Symbol.dispose). */
  [Symbol.dispose](): void;
}

/** A view of one dtype: `dtype` narrows `values` (`if (v.dtype === 'f64') v.values` is a Float64Array). */
export type PcoView<D extends Dtype = Dtype> =
  | { [K in D]: PcoViewMembers & { readonly dtype: K; readonly values: DtypeArrayMap[K] } }[D]
  /** A file without chunks that declares no dtype: no values. */
  | (Dtype extends D ? PcoViewMembers & { readonly dtype: null; readonly values: Uint8Array } : never);

export interface PcoViewStats {
  /** Views not yet released. */
  live: number;
  /** Bytes of wasm memory they hold. */
  bytes: number;
}

/** Decodes like decode(), but returns a view into wasm memory instead of a copy. Call release(). */
export function decodeView<D extends Dtype>(bytes: PcoBytes, options: PcoTypedDecodeOptions<D> & { dtype: D }): PcoView<D>;
export function decodeView(bytes: PcoBytes, options?: PcoDecodeOptions): PcoView;
export function viewStats(): PcoViewStats;
