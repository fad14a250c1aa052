// What the CLI reads before a reader takes over: an INPUT (a path, '-' for standard input, or an
// http(s) URL through js/io), what it holds as js/sniff.js tells from a file's first bytes or the
// names in a directory, and the two messages every command gives: "not found" and "not a format".
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { CODES, NumdecodeError } from '../errors.js';
import { openFile } from '../io/index.js';
import { FORMAT_NAMES, SNIFF_BYTES, ZARR_MARKERS, sniffBytes, sniffDirectory } from '../sniff.js';

export const isUrl = (input) => /^https?:\/\//i.test(input);

/** "not found: <input>" (code ERR_NOT_FOUND, the input as err.file). */
export function notFound(input, cause) {
  return new NumdecodeError(`not found: ${input}`, { code: CODES.NOT_FOUND, file: String(input), cause });
}

/** "not a format numdecode reads (checked: Pco, Parquet, ...)", the list from js/sniff.js. */
export function notAFormat(input, hint = '') {
  const checked = Object.values(FORMAT_NAMES).join(', ');
  return new NumdecodeError(`${input}: not a format numdecode reads (checked: ${checked})${hint}`, { code: CODES.UNSUPPORTED, file: String(input) });
}

const isMissing = (err) => err?.code === 'ENOENT' || err?.code === 'ENOTDIR' || err?.code === CODES.NOT_FOUND;

async function readStdin() {
  const parts = [];
  for await (const chunk of process.stdin) parts.push(chunk);
  const all = Buffer.concat(parts);
  return new Uint8Array(all.buffer, all.byteOffset, all.byteLength);
}

/**
 * All bytes of `input` (a path, '-' or an http(s) URL); at most maxReadBytes when given. A file
 * that is not there (or an HTTP 404) is notFound(input).
 */
export async function readInput(input, io = {}) {
  const { maxReadBytes } = io;
  if (input === '-') return readStdin();
  try {
    // a URL: read with all of the I/O flags (--timeout, --max-read-bytes, --concurrency)
    if (isUrl(input)) return await openFile(input, io).readAll();
    if (maxReadBytes !== undefined && statSync(input).size > maxReadBytes) {
      throw new NumdecodeError(`${input}: ${statSync(input).size} bytes, more than --max-read-bytes ${maxReadBytes}`, { code: CODES.OUTPUT_LIMIT, file: input });
    }
    return new Uint8Array(await readFile(input));
  } catch (err) {
    if (isMissing(err)) throw notFound(input, err);
    throw err;
  }
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

// Whether `url` answers (a 404 is no); other failures are thrown.
async function urlExists(url, io) {
  try {
    await openFile(url, io).size();
    return true;
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

// A URL's format: its first bytes, or, where no known file is there, the names a directory
// (Zarr store, BPCells matrix) has under it. A single file is never taken for a directory.
async function sniffUrl(url, io) {
  let missing = false;
  try {
    const file = openFile(url, io);
    const size = await file.size();
    const format = sniffBytes(await file.read(0, Math.min(size, SNIFF_BYTES)));
    if (format !== null) return format;
  } catch (err) {
    if (!isMissing(err)) throw err;
    missing = true;
  }
  const base = url.replace(/\/*$/, '/');
  const names = [...ZARR_MARKERS, 'version'];
  const there = await Promise.all(names.map((name) => urlExists(base + name, io)));
  const format = sniffDirectory(names.filter((_, i) => there[i]));
  if (format === null && missing) throw notFound(url);
  return format;
}

/**
 * What INPUT holds: {format, bytes?}. format is 'pco' | 'parquet' | 'hdf5' | 'zarr' | 'bpcells',
 * or null for bytes of no known format (ALP pages have no signature); bytes are standard input's,
 * read once. A path or URL with nothing there is notFound(input).
 */
export async function locateInput(input, io = {}) {
  if (input === '-') {
    const bytes = await readStdin();
    return { format: sniffBytes(bytes), bytes };
  }
  if (isUrl(input)) return { format: await sniffUrl(input, io) }; // io: --timeout, --max-read-bytes
  let stats;
  try {
    stats = statSync(input);
  } catch (err) {
    if (isMissing(err)) throw notFound(input, err);
    throw err;
  }
  return { format: stats.isDirectory() ? sniffDirectory(readdirSync(input)) : sniffBytes(readHead(input)) };
}
