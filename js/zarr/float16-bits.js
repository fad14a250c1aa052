// float16 where the engine has no Float16Array (Node 20, older browsers). zarrita cannot even
// open a float16 array there (it has no typed array to put the values in), so such an array is
// read as its bits: a store wrapper presents float16 metadata as uint16 (same bytes), with the
// fill value as its half-precision bits, and points pcodec at a codec entry that decodes the
// chunk's f16 Pco data as bits. Values stay exact; halfToNumber() gives the numbers. The explorer
// opens stores this way; the read (js/zarr/read.js) knows the renamed codec.
// This file registers the codec; the store wrapper is float16-store.js (re-exported here).
import { pcodecCodecEntry } from '../zarr.js';
import { FLOAT16_BITS_CODEC, FLOAT16_BITS_V2_ID } from './codec-names.js';

export { asBitsMetadata, float16AsBits, float16BitsStore, halfBits, halfToNumber } from './float16-store.js';

/** Registers the bits codec (v3 name and v2 id) in zarrita's registry, with the pcodec options. */
export function registerFloat16Bits(registry, options = {}) {
  const entry = pcodecCodecEntry(options);
  const bitsEntry = {
    kind: 'array_to_bytes',
    // The chunk holds f16 Pco data: the codec decodes it as float16 (bits without Float16Array).
    fromConfig: (configuration, meta) => entry.fromConfig(configuration, { ...meta, dataType: 'float16' }),
  };
  for (const name of [FLOAT16_BITS_CODEC, `numcodecs.${FLOAT16_BITS_V2_ID}`]) registry.set(name, () => Promise.resolve(bitsEntry));
  return registry;
}
