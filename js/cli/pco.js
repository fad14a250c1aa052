// The Pco part of the CLI: `numdecode decode FILE` and `numdecode inspect FILE` (the default format).
import { pco } from '../index.js';

export const name = 'pco';
export const summary = 'Pco (pcodec) standalone files';
// Options this format adds to decode/inspect (node:util parseArgs specs), with help text.
export const options = {};
export const optionHelp = [];

/** Every chunk's values in its own dtype: [{dtype, values}] (chunks may differ in dtype). */
export function decodeValues(bytes) {
  return pco.decodeChunks(bytes);
}

export function inspect(bytes) {
  return pco.inspect(bytes);
}
