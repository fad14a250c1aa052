// One error family for the whole package. Every error numdecode raises about data, I/O or state is
// a NumdecodeError (or a subclass per format) with a stable `code`; bad arguments stay TypeError /
// RangeError. Callers branch on `err.code` (or `instanceof`), never on message text.
//
//   ERR_BAD_DATA         the input is damaged or not what it claims to be
//   ERR_OUTPUT_LIMIT     decoding would exceed maxOutputBytes (or another stated limit)
//   ERR_NOT_INITIALIZED  a call that needs the wasm module came before init()
//   ERR_NETWORK          a file or URL could not be read (HTTP status, reset, timeout, CORS)
//   ERR_NOT_FOUND        the file or URL does not exist (ENOENT, HTTP 404/410, a source without it)
//   ERR_UNSUPPORTED      valid input that numdecode does not decode (a codec, a version)
//   ERR_ABORTED          the caller's AbortSignal fired
//   ERR_CHANGED          the file changed on the server while it was being read
//   ERR_IN_USE           releaseMemory() while views or input buffers still hold the module's memory
//   ERR_CLOSED           a call on a handle (an open Parquet file) after its close()

export const CODES = Object.freeze({
  BAD_DATA: 'ERR_BAD_DATA',
  OUTPUT_LIMIT: 'ERR_OUTPUT_LIMIT',
  NOT_INITIALIZED: 'ERR_NOT_INITIALIZED',
  NETWORK: 'ERR_NETWORK',
  NOT_FOUND: 'ERR_NOT_FOUND',
  UNSUPPORTED: 'ERR_UNSUPPORTED',
  ABORTED: 'ERR_ABORTED',
  CHANGED: 'ERR_CHANGED',
  IN_USE: 'ERR_IN_USE',
  CLOSED: 'ERR_CLOSED',
});

const KNOWN = new Set(Object.values(CODES));

// Fields an error may carry to say where it happened; they survive the worker pool.
export const LOCATION_FIELDS = ['file', 'dataset', 'column', 'rowGroup', 'page', 'status', 'array'];

export class NumdecodeError extends Error {
  /**
   * @param {string} message
   * @param {{code?: string, cause?: unknown, file?: string, dataset?: string, column?: string,
   *          rowGroup?: number, page?: number, status?: number, array?: string}} [details]
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
/** HDF5 files (js/hdf5): `file` names the file, `dataset` the object path inside it. */
export class Hdf5Error extends NumdecodeError {}

/** Zarr stores (js/zarr): `file` names the store (its path or URL) or a key in it, `array` the array's path. */
export class ZarrError extends NumdecodeError {}

/** BPCells matrices (directories and HDF5 groups); `file` names the array file or dataset. */
export class BpcellsError extends NumdecodeError {
  constructor(message, details = {}) {
    super(`bpcells: ${message}`, details);
  }
}

/**
 * The error to throw when `signal` has fired: ErrorClass (IoError for reads) with code ERR_ABORTED,
 * naming what was aborted and keeping the signal's reason as `cause`.
 */
export function abortError(signal, what = 'operation', ErrorClass = NumdecodeError, where = {}) {
  return new ErrorClass(`${what} aborted`, { ...where, code: CODES.ABORTED, cause: signal?.reason });
}

const CLASSES = { NumdecodeError, IoError, PcoError, AlpError, ParquetError, BpcellsError, Hdf5Error, ZarrError };

function plainCause(cause) {
  if (cause instanceof Error) return { name: cause.name, message: cause.message, code: cause.code };
  if (cause === undefined || cause === null || typeof cause !== 'object') return cause;
  return String(cause);
}

/** A structured-clone-safe picture of an error (for worker messages): class, code, location, cause. */
export function serializeError(err) {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const data = { name: err.name, message: err.message };
  if (typeof err.code === 'string') data.code = err.code;
  for (const key of [...LOCATION_FIELDS, 'jobIndex']) if (err[key] !== undefined) data[key] = err[key];
  if (err.cause !== undefined) data.cause = plainCause(err.cause);
  return data;
}

/** The error serializeError described, rebuilt with the same class, code and fields. */
export function deserializeError(data) {
  const { name = 'Error', message = '', code, cause, ...fields } = data ?? {};
  let err;
  if (Object.hasOwn(CLASSES, name)) {
    err = Object.create(CLASSES[name].prototype);
    // The message is already final (BpcellsError's prefix included): set fields directly.
    Object.defineProperty(err, 'message', { value: message, writable: true, configurable: true });
    Object.defineProperty(err, 'name', { value: name, writable: true, configurable: true });
    err.stack = `${name}: ${message}\n    (raised in a numdecode worker)`;
  } else {
    const Native = { TypeError, RangeError, SyntaxError }[name] ?? Error;
    err = new Native(message);
    if (err.name !== name) err.name = name;
  }
  if (code !== undefined) err.code = code;
  if (cause !== undefined) err.cause = cause;
  for (const [key, value] of Object.entries(fields)) err[key] = value;
  return err;
}
