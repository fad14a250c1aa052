// What the page says when a file cannot be opened: the reader's message where it is clear, and a
// plainer one where the reader's words assume knowledge a visitor lacks (a version number, a
// footer). Decided from the error's fields (its class name, code and HTTP status), never by
// reading its message.

import { FORMAT_NAMES } from '../../js/sniff.js';

/** The formats the page recognises by their bytes or their folder's files: js/sniff.js's list, as the CLI prints it. */
export const RECOGNISED = Object.values(FORMAT_NAMES).join(', ');

/** An error with the given message, keeping the original as its cause. */
function restated(message, err) {
  const out = new Error(message, { cause: err });
  if (err?.code) out.code = err.code;
  return out;
}

/** The message for bytes that no format claims, and that do not read as an ALP page either. */
export function notRecognised(name) {
  return new Error(`${name} is not a format I recognise (checked: ${RECOGNISED}; nor does it read as an ALP page, which has no signature of its own: if it is one, choose ALP f32 or ALP f64 in the Format menu to see what the ALP reader finds wrong)`);
}

/**
 * A clearer error for a failed open, or `err` itself.
 * @param {Error & {name?: string, code?: string, status?: number}} err
 * @param {{url?: string, name?: string, truncatedParquet?: boolean, folder?: boolean}} context what was being opened;
 *   truncatedParquet: the file starts with Parquet's magic but does not end with it; folder: a
 *   folder picked or dropped (its files read as a BPCells directory)
 */
export function explainOpenError(err, { url, name, truncatedParquet = false, folder = false } = {}) {
  if (err?.status === 404 && url) return restated(`HTTP 404 Not Found: there is no file at ${url}`, err);
  // The reader names the missing file in the words of its source API ("size() returned null").
  if (folder && err?.name === 'BpcellsError' && err.code === 'ERR_NOT_FOUND' && err.file) {
    // No version file: the folder is no matrix at all, and no Zarr store was found either.
    if (err.file === 'version') {
      return restated('the folder holds neither a BPCells matrix directory (it has no file "version") nor a Zarr store (no zarr.json, .zgroup, .zarray or .zmetadata in it or in a folder inside it)', err);
    }
    return restated(`the folder has no file "${err.file}", which a BPCells matrix directory holds`, err);
  }
  if (err?.name === 'PcoError' && err.code === 'ERR_UNSUPPORTED') {
    return restated(`${name ?? 'this file'} is damaged, or was written by a newer pcodec than this page reads (${err.message})`, err);
  }
  if (truncatedParquet) {
    return restated(`${name ?? 'this file'} looks truncated: it starts like a Parquet file (PAR1) but does not end with PAR1, where a complete file's footer ends (${err.message})`, err);
  }
  return err;
}

const PAR1 = [0x50, 0x41, 0x52, 0x31];

/** True when the last four bytes are Parquet's closing magic "PAR1". */
export function endsWithPar1(tail) {
  return tail.length >= 4 && PAR1.every((b, i) => tail[tail.length - 4 + i] === b);
}
