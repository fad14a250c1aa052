// numdecode/zarr: a zarrita.js codec for numcodecs' pcodec (Zarr v2 compressor "pcodec",
// Zarr v3 codec "numcodecs.pcodec" or "pcodec"). Decode only.
import type { DecodedArray } from './dtypes.js';
import type { InitOptions } from './wasm/load.js';
import type { WorkerPool } from './worker/index.js';

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

/** The chunk metadata zarrita passes to fromConfig. */
export interface ZarrChunkMeta {
  dataType: string;
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
  /** Always throws: numdecode does not encode. */
  encode(): never;
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
