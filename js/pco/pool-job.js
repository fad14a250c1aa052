// The worker's side of pool.decodePcoMany (job format 'pcoMany', see js/worker/worker.js): many standalone
// Pco files sent as one buffer and a list of where each ends. A job object per small file cost the
// calling thread more to build and send than the worker spent decoding it.
import { decode } from '../pco.js';

/**
 * @param {Uint8Array} files the files back to back
 * @param {Float64Array} ends where each file ends in `files`
 * @param {{maxOutputBytes?: number}} [options] as for pco.decode
 * @returns {{results: ArrayBufferView[], files: Uint8Array}} the decoded files in order, and `files`
 *   itself, sent back for the pool to pack its next files into; the first failure throws, with
 *   err.jobIndex the index of its file in this job
 */
export function decodeFiles(files, ends, options) {
  const results = [];
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    const bytes = files.subarray(start, ends[i]);
    start = ends[i];
    try {
      results.push(options === undefined ? decode(bytes) : decode(bytes, options));
    } catch (err) {
      err.jobIndex = i;
      throw err;
    }
  }
  return { results, files };
}
