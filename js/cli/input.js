// What the CLI reads before a reader takes over: a whole file (or standard input), and what a
// local path holds, told by js/sniff.js from a file's first bytes or a directory's names.
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { SNIFF_BYTES, sniffBytes, sniffDirectory } from '../sniff.js';

/** All bytes of `file`, or of standard input when file is '-'. */
export async function readInput(file) {
  if (file !== '-') return new Uint8Array(await readFile(file));
  const parts = [];
  for await (const chunk of process.stdin) parts.push(chunk);
  const all = Buffer.concat(parts);
  return new Uint8Array(all.buffer, all.byteOffset, all.byteLength);
}

// The first SNIFF_BYTES bytes of a local file (fewer if it is shorter).
function readHead(file) {
  const fd = openSync(file, 'r');
  try {
    const head = new Uint8Array(SNIFF_BYTES);
    return head.subarray(0, readSync(fd, head, 0, head.length, 0));
  } finally {
    closeSync(fd);
  }
}

/**
 * What a local path holds: for a file its signature ('pco', 'parquet', 'hdf5'), for a directory
 * 'zarr' or 'bpcells'; null when that says nothing or the path cannot be read.
 */
export function sniffPath(file) {
  try {
    return statSync(file).isDirectory() ? sniffDirectory(readdirSync(file)) : sniffBytes(readHead(file));
  } catch {
    return null; // missing or unreadable: no format
  }
}
