// Types of the CommonJS entry of numdecode/zarr (js/zarr.cjs).
import type * as esm from './zarr.js';

export type { PcodecConfiguration, PcodecOptions, ZarrChunkMeta, ZarrChunk, CodecRegistry, PcodecCodec, PcodecCodecEntry } from './zarr.js';

export const PCODEC_CODEC_NAMES: typeof esm.PCODEC_CODEC_NAMES;
export const PCODEC_ENCODER_FIELDS: typeof esm.PCODEC_ENCODER_FIELDS;
export const registerPcodec: typeof esm.registerPcodec;
/** The ES module: PcodecCodec, pcodecCodecEntry, ... */
export function load(): Promise<typeof esm>;
