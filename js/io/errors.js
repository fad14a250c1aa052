// The I/O layer's errors: always IoError (from the package's one error family) with `file` set to
// what the file is called (its path or URL; a directory's file: its name there) and a message that
// says what happened and where. A file that does not exist is code ERR_NOT_FOUND.
import { CODES, IoError } from '../errors.js';

export { CODES, IoError };

export function ioError(file, message, details = {}) {
  return new IoError(message, { file, ...details });
}

/** Byte range arguments: integers with 0 <= start <= end (a TypeError/RangeError: a bad call, not bad data). */
export function checkRange(start, end) {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) {
    throw new TypeError(`byte range [${start}, ${end}): start and end must be integers`);
  }
  if (start < 0 || end < start) throw new RangeError(`byte range [${start}, ${end}): needs 0 <= start <= end`);
}

export function truncatedError(file, start, end, size, extra = '') {
  // The file's own fault (it ends early), not the medium's: ERR_BAD_DATA, not ERR_NETWORK.
  return ioError(file, `${file}: needs bytes [${start}, ${end}) but the file has only ${size} bytes (truncated?)${extra}`, { code: CODES.BAD_DATA });
}
