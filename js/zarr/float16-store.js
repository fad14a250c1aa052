// float16 where the engine has no Float16Array (Node 20, older browsers). zarrita cannot even
// open a float16 array there (it has no typed array to put the values in), so such an array is
// read as its bits: a store wrapper presents float16 metadata as uint16 (same bytes), with the
// fill value as its half-precision bits, and points pcodec at a codec entry that decodes the
// chunk's f16 Pco data as bits. Values stay exact; halfToNumber() gives the numbers. The explorer
// opens stores this way; the read (js/zarr/read.js) knows the renamed codec.
// (The store side: no codec here, so that list() and openArray() need not load the codec entry;
// float16-bits.js adds the codec registration.)
import { FLOAT16_BITS_CODEC, FLOAT16_BITS_V2_ID, PCODEC_CODEC_NAMES } from './codec-names.js';

/** True when the engine lacks Float16Array and float16 arrays are read as their bits. */
export const float16AsBits = () => typeof globalThis.Float16Array !== 'function';


export { halfToNumber } from '../number-text.js';

function roundHalfEven(v) {
  const f = Math.floor(v);
  const d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** The half-precision bits of a double, rounded to nearest even (for fill values). */
export function halfBits(x) {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= 65520) return sign | 0x7c00; // rounds to infinity
  if (a < 2 ** -14) return sign | roundHalfEven(a / 2 ** -24); // subnormal (1024 carries into the exponent)
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  if (2 ** (e + 1) <= a) e++;
  return sign | (((e + 15) << 10) + roundHalfEven((a / 2 ** e - 1) * 1024));
}

// A Zarr fill value (number, "NaN", "Infinity", "-Infinity", or v3 hex bits "0x7e00") as bits.
function fillBits(fill) {
  if (fill === null || fill === undefined) return 0;
  if (typeof fill === 'string' && /^0x[0-9a-f]{1,4}$/i.test(fill)) return parseInt(fill, 16);
  return halfBits(Number(fill));
}

function renameCodecs(codecs) {
  return (codecs ?? []).map((c) => {
    if (PCODEC_CODEC_NAMES.includes(c?.name)) return { ...c, name: FLOAT16_BITS_CODEC };
    if (c?.name === 'sharding_indexed' && c.configuration) {
      return { ...c, configuration: { ...c.configuration, codecs: renameCodecs(c.configuration.codecs) } };
    }
    return c;
  });
}

/** The metadata object with float16 presented as uint16 bits; other metadata unchanged. */
export function asBitsMetadata(meta) {
  if (meta?.zarr_format === 3 && meta.node_type === 'array' && meta.data_type === 'float16') {
    return { ...meta, data_type: 'uint16', fill_value: fillBits(meta.fill_value), codecs: renameCodecs(meta.codecs) };
  }
  if (meta?.zarr_format === 2 && typeof meta.dtype === 'string' && /^[<|]f2$/.test(meta.dtype)) {
    const compressor = meta.compressor?.id === 'pcodec' ? { ...meta.compressor, id: FLOAT16_BITS_V2_ID } : meta.compressor;
    return { ...meta, dtype: '<u2', fill_value: fillBits(meta.fill_value), compressor };
  }
  return meta;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Wraps a store so that float16 array metadata (zarr.json, .zarray) reads as uint16 bits. */
export function float16BitsStore(inner) {
  const store = {};
  if (typeof inner.getRange === 'function') store.getRange = (key, range, options) => inner.getRange(key, range, options);
  if (typeof inner.contents === 'function') store.contents = () => inner.contents();
  if (inner.stats) store.stats = inner.stats;
  store.get = async (key, options) => {
    const bytes = await inner.get(key, options);
    if (!bytes || !/(^|\/)(zarr\.json|\.zarray)$/.test(key)) return bytes;
    let meta;
    try {
      meta = JSON.parse(decoder.decode(bytes));
    } catch {
      return bytes; // zarrita reports bad JSON itself
    }
    const changed = asBitsMetadata(meta);
    return changed === meta ? bytes : encoder.encode(JSON.stringify(changed));
  };
  return store;
}
