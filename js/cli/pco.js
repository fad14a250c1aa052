// The Pco part of the CLI: `numdecode decode FILE` and `numdecode inspect FILE` (the default format).
import { pco } from '../index.js';

export const name = 'pco';
export const summary = 'Pco (pcodec) standalone files';
// Options this format adds to decode/inspect (node:util parseArgs specs), with help text.
export const options = {};
export const optionHelp = [];

/** All chunks' values as raw little-endian bytes, concatenated (chunks may differ in dtype). */
export function decode(bytes) {
  return pco.decodeChunks(bytes).map(({ values }) => new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
}

export function inspect(bytes) {
  return pco.inspect(bytes);
}
