// One error family for the whole package. Every error numdecode raises about data, I/O or state is
// a NumdecodeError (or a subclass per format) with a stable `code`; bad arguments stay TypeError /
// RangeError. Callers branch on `err.code` (or `instanceof`), never on message text.
//
//   ERR_BAD_DATA         the input is damaged or not what it claims to be
//   ERR_OUTPUT_LIMIT     decoding would exceed maxOutputBytes (or another stated limit)
//   ERR_NOT_INITIALIZED  a call that needs the wasm module came before init()
//   ERR_NETWORK          a file or URL could not be read (HTTP status, reset, timeout, CORS)
//   ERR_UNSUPPORTED      valid input that numdecode does not decode (a codec, a version)
//   ERR_ABORTED          the caller's AbortSignal fired
//   ERR_CHANGED          the file changed on the server while it was being read

export const CODES = Object.freeze({
  BAD_DATA: 'ERR_BAD_DATA',
  OUTPUT_LIMIT: 'ERR_OUTPUT_LIMIT',
  NOT_INITIALIZED: 'ERR_NOT_INITIALIZED',
  NETWORK: 'ERR_NETWORK',
  UNSUPPORTED: 'ERR_UNSUPPORTED',
  ABORTED: 'ERR_ABORTED',
  CHANGED: 'ERR_CHANGED',
});

const KNOWN = new Set(Object.values(CODES));

// Fields an error may carry to say where it happened; they survive the worker pool.
export const LOCATION_FIELDS = ['file', 'dataset', 'column', 'rowGroup', 'page', 'status'];

export class NumdecodeError extends Error {
  /**
   * @param {string} message
   * @param {{code?: string, cause?: unknown, file?: string, dataset?: string, column?: string,
   *          rowGroup?: number, page?: number, status?: number}} [details]
   */
  constructor(message, details = {}) {
    const { code = CODES.BAD_DATA, cause, ...where } = details ?? {};
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = KNOWN.has(code) ? code : CODES.BAD_DATA;
    for (const key of LOCATION_FIELDS) if (where[key] !== undefined) this[key] = where[key];
  }
}

/** Reading bytes failed: HTTP, file system, Blob, a user source. `file` is the path or URL. */
export class IoError extends NumdecodeError {
  constructor(message, details = {}) {
    super(message, { code: CODES.NETWORK, ...details });
  }
}

export class PcoError extends NumdecodeError {}
export class AlpError extends NumdecodeError {}
export class ParquetError extends NumdecodeError {}

/** BPCells matrices (directories and HDF5 groups); `file` names the array file or dataset. */
export class BpcellsError extends NumdecodeError {
  constructor(message, details = {}) {
    super(`bpcells: ${message}`, details);
  }
}

/** The error to throw when `signal` has fired; keeps the signal's reason as `cause`. */
export function abortError(signal, what = 'operation') {
  return new NumdecodeError(`${what} aborted`, { code: CODES.ABORTED, cause: signal?.reason });
}

/** Throws the abort error if `signal` has already fired. */
export function throwIfAborted(signal, what) {
  if (signal?.aborted) throw abortError(signal, what);
}
