// numdecode/zarr: a zarrita.js codec for numcodecs' pcodec (Zarr v2 compressor "pcodec",
// Zarr v3 codec "numcodecs.pcodec" or "pcodec"): decodes chunks, and encodes them for zarr.set.
import type { DecodedArray, Dtype } from './dtypes.js';
import type { ZarrError } from './errors.js';
import type { InitOptions } from './wasm/load.js';
import type { WorkerPool } from './worker/index.js';
import type { IoOptions, IoStats } from './io/index.js';

/** The names registerPcodec() registers. */
export const PCODEC_CODEC_NAMES: readonly ['numcodecs.pcodec', 'pcodec'];
/** Configuration fields numcodecs writes; they steer only the encoder. */
export const PCODEC_ENCODER_FIELDS: readonly string[];

/** The codec configuration as numcodecs writes it (all optional, all ignored when decoding). */
export interface PcodecConfiguration {
  level?: number;
  mode_spec?: string;
  delta_spec?: string;
  paging_spec?: string;
  delta_encoding_order?: number | null;
  equal_pages_up_to?: number;
  [field: string]: unknown;
}

/** The chunk metadata zarrita passes to fromConfig (zarrita 0.6, and fizarrita's workers, say data_type). */
export interface ZarrChunkMeta {
  dataType?: string;
  data_type?: string;
  shape: number[];
  codecs?: { name: string; configuration?: unknown }[];
}

/** A decoded chunk as zarrita expects it: C-order values, shape, strides. */
export interface ZarrChunk {
  /** float16 arrays: Float16Array where the engine has it, else the bits as a Uint16Array. */
  data: DecodedArray | ArrayLike<number>;
  shape: number[];
  stride: number[];
}

export interface PcodecOptions {
  /** Options for numdecode's init(), with which the codec loads the Pco module (only) before its first decode. */
  init?: InitOptions;
  /** Decode chunks in this worker pool (numdecode/worker) instead of the calling thread. */
  pool?: Pick<WorkerPool, 'run'>;
}

export class PcodecCodec {
  readonly kind: 'array_to_bytes';
  static readonly kind: 'array_to_bytes';
  /** The configuration as written in the metadata. */
  readonly configuration: Readonly<PcodecConfiguration>;
  constructor(configuration: PcodecConfiguration | null | undefined, meta: ZarrChunkMeta, options?: PcodecOptions);
  static fromConfig(configuration: PcodecConfiguration | null | undefined, meta: ZarrChunkMeta): PcodecCodec;
  /**
   * Encodes one chunk (its values in C order) as a standalone Pco file, configured as numcodecs
   * configures PCodec (level, mode_spec, delta_spec, paging_spec, delta_encoding_order, equal_pages_up_to).
   */
  encode(chunk: { data: ArrayBufferView; shape: number[]; stride?: number[] }): Promise<Uint8Array>;
  /** Decodes one chunk (a standalone Pco file). Rejects if its dtype or size does not match the metadata. */
  decode(bytes: Uint8Array): Promise<ZarrChunk>;
}

/** A zarrita codec registry entry. */
export interface PcodecCodecEntry {
  readonly kind: 'array_to_bytes';
  fromConfig(configuration: any, meta: ZarrChunkMeta): PcodecCodec;
}

export function pcodecCodecEntry(options?: PcodecOptions): PcodecCodecEntry;

/** What registerPcodec needs of zarrita's registry (a Map of codec loaders). */
export interface CodecRegistry {
  set(name: string, loader: () => Promise<any>): unknown;
}

/** Registers the codec under every name in PCODEC_CODEC_NAMES; returns the registry. */
export function registerPcodec<R extends CodecRegistry>(registry: R, options?: PcodecOptions): R;

/** A selection entry per dimension, as zarrita's: null (all of it), an integer (one index; the
 * dimension drops out), or a slice (zarr.slice(start, stop, step), step 1 or more). */
export type ZarrSelection = (null | number | { start?: number | null; stop?: number | null; step?: number | null })[] | null;

export interface ZarrReadProgress {
  /** Chunks placed so far (the vocabulary's progress: done of total, in unit). */
  done: number;
  total: number;
  unit: 'chunks';
  /** Chunks placed so far (stored or filled): done's older name. */
  chunks: number;
  /** Chunks the selection touches: total's older name. */
  totalChunks: number;
  /** Compressed bytes fetched so far. */
  bytes: number;
}

export interface ZarrReadOptions {
  selection?: ZarrSelection;
  /** Decode in this worker pool (numdecode/worker): into one SharedArrayBuffer output where there is one. */
  pool?: WorkerPool;
  /** Start a pool of this many workers for the read and stop it after. */
  workers?: number;
  /** Write into this array (the array's typed array class, exactly the selection's size) instead of a new one. */
  into?: ArrayBufferView;
  signal?: AbortSignal;
  onProgress?: (progress: ZarrReadProgress) => void;
  /** Chunk fetches (or shard ranges) in flight at once: by default 16 from a local folder and for sharded arrays; from other stores 16 to 64 (64 unless that holds over about 32 MiB of decoded chunks). */
  concurrency?: number;
  /** Options for loading the Pco module, when the read is the first decode. */
  init?: InitOptions;
  /** Refuse (ZarrError ERR_OUTPUT_LIMIT) a selection of more bytes than this, before anything is allocated or fetched. */
  maxOutputBytes?: number;
}

export interface ZarrReadResult<T extends ArrayBufferView = ArrayBufferView> {
  /** The values in the array's stored order (C, or F for a v2 order "F" array), as stride says. */
  data: T;
  shape: number[];
  stride: number[];
}

/** Reads an array opened with zarrita, or a selection of it: zarrita's get, decoded by numdecode. */
export function read(array: { store: unknown; path: string; shape: number[]; chunks: number[]; dtype: string }, options?: ZarrReadOptions): Promise<ZarrReadResult>;

/** readView's options: read()'s without those that put the output elsewhere (pool, workers, into). */
export type ZarrReadViewOptions = Omit<ZarrReadOptions, 'pool' | 'workers' | 'into'>;

/**
 * A Zarr read as a zero-copy view in the Pco module's memory (readView): `data`, `shape`, `stride`
 * as read() gives them. `data` is valid until release(); arrays taken from it earlier are detached
 * by any later numdecode call that grows the module's memory (read `data` again). While a view is
 * live, releaseMemory() of Pco refuses (ERR_IN_USE).
 */
export interface ZarrReadView<T extends ArrayBufferView = ArrayBufferView> extends ZarrReadResult<T> {
  /** numdecode's name of the values' type ('f32', 'u16', 'f16' as bits, ...). */
  readonly dtype: Dtype;
  /** Values in the view. */
  readonly length: number;
  readonly byteLength: number;
  /** The same array as data. */
  readonly values: T;
  readonly released: boolean;
  /** Frees the memory; safe to call more than once. */
  release(): void;
  /** The same as release(), for `using view = await readView(arr)` (where the engine has Symbol.dispose). */
  [Symbol.dispose](): void;
}

/** As read(), as a view in wasm memory: each pcodec chunk decodes into its place there, nothing is copied out. Pcodec arrays only (else a ZarrError ERR_UNSUPPORTED). */
export function readView(array: { store: unknown; path: string; shape: number[]; chunks: number[]; dtype: string }, options?: ZarrReadViewOptions): Promise<ZarrReadView>;

/** A zarrita store over a local folder (Node only): reads each chunk file with synchronous calls. */
export class LocalStore {
  /** readAhead: false keeps a read's file calls on the calling thread (no reader thread, ~10 MB less while it would live). */
  constructor(root: string, options?: { readAhead?: boolean });
  readonly root: string;
  /** Whether a read() of 256 chunk files or more has them read ahead on a thread of their own (default true). */
  readonly readAhead: boolean;
  get(key: string, options?: { signal?: AbortSignal }): Promise<Uint8Array | undefined>;
  getRange(key: string, range: { offset: number; length: number } | { suffixLength: number }, options?: { signal?: AbortSignal }): Promise<Uint8Array | undefined>;
}

/** A zarrita store over an http(s) URL through numdecode's I/O layer (see httpStore). */
export interface ZarrHttpStore extends ZarrStoreLike {
  readonly url: string;
  /** What crossed the wire: requests, bytes, retries, round trips (`files` stays empty: no tally per chunk URL). */
  readonly stats: IoStats;
  getRange(key: string, range: { offset: number; length: number } | { suffixLength: number }, options?: { signal?: AbortSignal }): Promise<Uint8Array | undefined>;
}

/**
 * A zarrita store over an http(s) URL that reads through numdecode's I/O layer: retries, a timeout
 * per request, each file's version pinned (ERR_CHANGED), Range answers checked (a server that
 * ignores Range is read once whole). list() and openArray() use one for a URL. Its code loads on
 * first use. cacheBytes defaults to 0 here; concurrency (requests in flight per origin) is 64 in Node, 6 in a browser (raise it for an HTTP/2 server).
 */
export function httpStore(url: string | URL, options?: Omit<IoOptions, 'signal' | 'name'>): Promise<ZarrHttpStore>;

/** Errors about a Zarr store: `file` the store (path or URL) or a key in it, `array` the array's path. */
export { CODES, NumdecodeError, ZarrError } from './errors.js';
/** numdecode's dtype names (an array node's `dtype`). */
export type { Dtype } from './dtypes.js';

/** What a store given to list() must have: zarrita's store interface. */
export interface ZarrStoreLike {
  get(key: string, options?: { signal?: AbortSignal }): Promise<Uint8Array | undefined>;
  getRange?(key: string, range: { offset: number; length: number } | { suffixLength: number }, options?: { signal?: AbortSignal }): Promise<Uint8Array | undefined>;
}

export interface ZarrListOptions {
  /** The store's name in messages and in the listing (default: the URL or path). */
  name?: string;
  /** Array or group paths to look for where the store cannot be listed (HTTP without consolidated metadata). */
  hints?: string[];
  /** Every metadata key of the store ("/t2m/zarr.json"), when the caller can list it (a picked folder). A local directory is walked without it. */
  listMetadataKeys?: () => string[] | Promise<string[]>;
  signal?: AbortSignal;
}

/** For a URL: the I/O options of the store made for it (retries, timeout, headers, fetch, ...; docs/io.md). */
export type ZarrUrlOptions = Omit<IoOptions, 'signal' | 'name'>;

/** One codec of an array's chain (inner and index codecs of a shard follow theirs, one level deeper). */
export interface ZarrCodec {
  name: string;
  configuration: Record<string, unknown>;
  role: 'codec' | 'inner codec' | 'index codec' | 'filter' | 'compressor';
  depth: number;
  /** Who decodes it: numdecode (pcodec), zarrita, zarrita with the numcodecs package, or nobody here (null). */
  decoder: 'numdecode' | 'zarrita' | 'zarrita + numcodecs' | null;
}

export interface ZarrGroupNode {
  kind: 'group';
  /** "/" for the root, "/a/b" below it. */
  path: string;
  zarrFormat: 2 | 3;
  attributes: Record<string, unknown>;
}

export interface ZarrArrayNode {
  kind: 'array';
  path: string;
  zarrFormat: 2 | 3;
  attributes: Record<string, unknown>;
  shape: number[];
  /** The chunk shape: for a sharded array the inner chunks (what is decoded one at a time). */
  chunks: number[] | null;
  /** The shard shape of a sharded array (the chunk grid), else null. */
  shards: number[] | null;
  /** Where each shard keeps its index; zarrita 0.7.5 reads 'end' only, numdecode's read() both. */
  indexLocation: 'start' | 'end' | null;
  /** Zarr's data type name ("float32"; v2's "<f4" as its v3 name). */
  dataType: string;
  /** numdecode's dtype for it, or null (bool, strings, ...). */
  dtype: Dtype | null;
  /** Zarr v2 only: the dtype as .zarray writes it ("<f4"). */
  v2Dtype?: string;
  fillValue: unknown;
  /** Zarr v2's order; null for v3 (no such field: values come in C order). */
  order: 'C' | 'F' | null;
  chunkKeyEncoding: { name: string; separator: string };
  codecs: ZarrCodec[];
  /** Codec names in the chain that nothing here decodes (empty: readable). */
  undecodableCodecs: string[];
  /** v3 dimension_names, or v2's _ARRAY_DIMENSIONS attribute. */
  dimensionNames: (string | null)[] | null;
}

export type ZarrNode = ZarrGroupNode | ZarrArrayNode;

export interface ZarrListing {
  /** The store's name (options.name, or the URL or path). */
  store: string;
  /** The root's kind. */
  kind: 'group' | 'array';
  zarrFormat: 2 | 3;
  /** The hierarchy came from consolidated metadata. */
  consolidated: boolean;
  /** Every node is listed (consolidated metadata, a listed or local store); false over HTTP without consolidated metadata: only the root, the hints and arrays named as dimensions. */
  complete: boolean;
  /** Sorted by path, the root first. */
  nodes: ZarrNode[];
  /** Nodes whose metadata could not be read (bad JSON, a failed request). */
  errors: ZarrError[];
}

/**
 * Lists a Zarr store (v2 or v3; a group or an array): every group and array with its metadata and
 * codecs. Needs zarrita. Rejects with a ZarrError: ERR_NOT_FOUND (no such local directory),
 * ERR_BAD_DATA (not a Zarr store, bad JSON at the root), ERR_NETWORK (the store could not be read; `status` when HTTP said why).
 */
export function list(source: string | URL | ZarrStoreLike, options?: ZarrListOptions & ZarrUrlOptions): Promise<ZarrListing>;

/** An array opened by openArray(): zarrita's Array (typed here by what read() uses of it). */
export interface ZarrOpenedArray {
  store: unknown;
  path: string;
  shape: number[];
  chunks: number[];
  /** zarrita's data type: "uint16" for a float16 array opened as its bits (no Float16Array). */
  dtype: string;
}

/**
 * Opens one array of a store for read(), with list()'s guards: a ZarrError (`array`, `file`) when it
 * is not there (ERR_NOT_FOUND), is a group or its metadata is damaged (ERR_BAD_DATA), or uses a codec
 * nothing here decodes (ERR_UNSUPPORTED). Where the engine has no Float16Array a float16 array
 * opens as its bits, which read() returns as a Uint16Array. Needs zarrita.
 */
export function openArray(source: string | URL | ZarrStoreLike, path: string, options?: { name?: string; signal?: AbortSignal } & ZarrUrlOptions): Promise<ZarrOpenedArray>;
