// Types of the CommonJS entry of numdecode/zarr (js/zarr.cjs).
// resolution-mode: under moduleResolution node16 a CommonJS file may only type-import ESM this way.
import type * as esm from './zarr.js' with { 'resolution-mode': 'import' };

export type { PcodecConfiguration, PcodecOptions, ZarrChunkMeta, ZarrChunk, CodecRegistry, PcodecCodec, PcodecCodecEntry } from './zarr.js' with { 'resolution-mode': 'import' };

export const PCODEC_CODEC_NAMES: typeof esm.PCODEC_CODEC_NAMES;
export const PCODEC_ENCODER_FIELDS: typeof esm.PCODEC_ENCODER_FIELDS;
export const registerPcodec: typeof esm.registerPcodec;
/** The ES module: PcodecCodec, pcodecCodecEntry, ... */
export function load(): Promise<typeof esm>;
