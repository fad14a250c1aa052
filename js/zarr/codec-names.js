// The codec names under which Zarr metadata names pcodec: what registerPcodec() registers in
// zarrita and what the read (js/zarr/read.js) decodes itself.

/** Zarr v3 metadata calls the codec "numcodecs.pcodec" (numcodecs.zarr3.PCodec) and some newer
 * writers "pcodec"; a v2 compressor {"id": "pcodec"} is looked up as "numcodecs.pcodec". */
export const PCODEC_CODEC_NAMES = Object.freeze(['numcodecs.pcodec', 'pcodec']);

/** The name float16 arrays' pcodec gets where the engine has no Float16Array and the explorer
 * reads them as uint16 bits (js/zarr/float16-bits.js). */
export const FLOAT16_BITS_CODEC = 'numdecode.pcodec_float16_bits';
/** The v2 compressor id of the same (zarrita looks it up as numcodecs.<id>). */
export const FLOAT16_BITS_V2_ID = 'numdecode_pcodec_float16_bits';
