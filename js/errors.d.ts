export type NumdecodeErrorCode =
  | 'ERR_BAD_DATA'
  | 'ERR_OUTPUT_LIMIT'
  | 'ERR_NOT_INITIALIZED'
  | 'ERR_NETWORK'
  | 'ERR_NOT_FOUND'
  | 'ERR_UNSUPPORTED'
  | 'ERR_ABORTED'
  | 'ERR_CHANGED'
  | 'ERR_IN_USE'
  | 'ERR_CLOSED';

export declare const CODES: {
  readonly BAD_DATA: 'ERR_BAD_DATA';
  readonly OUTPUT_LIMIT: 'ERR_OUTPUT_LIMIT';
  readonly NOT_INITIALIZED: 'ERR_NOT_INITIALIZED';
  readonly NETWORK: 'ERR_NETWORK';
  readonly NOT_FOUND: 'ERR_NOT_FOUND';
  readonly UNSUPPORTED: 'ERR_UNSUPPORTED';
  readonly ABORTED: 'ERR_ABORTED';
  readonly CHANGED: 'ERR_CHANGED';
  readonly IN_USE: 'ERR_IN_USE';
  readonly CLOSED: 'ERR_CLOSED';
};

export interface NumdecodeErrorDetails {
  code?: NumdecodeErrorCode;
  cause?: unknown;
  /** The file, URL or array file the error is about. */
  file?: string;
  /** HDF5 dataset path. */
  dataset?: string;
  /** Parquet column path. */
  column?: string;
  rowGroup?: number;
  page?: number;
  /** HTTP status, when an HTTP answer caused the error. */
  status?: number;
  /** Zarr array path in its store ("/t2m"). */
  array?: string;
}

/** Every error numdecode raises about data, I/O or state; branch on `code`. */
export declare class NumdecodeError extends Error {
  constructor(message: string, details?: NumdecodeErrorDetails);
  readonly code: NumdecodeErrorCode;
  file?: string;
  dataset?: string;
  column?: string;
  rowGroup?: number;
  page?: number;
  status?: number;
  array?: string;
}
/** Reading bytes failed (HTTP, file system, Blob, a user source); code ERR_NETWORK, ERR_ABORTED or ERR_CHANGED. */
export declare class IoError extends NumdecodeError {}
export declare class PcoError extends NumdecodeError {}
export declare class AlpError extends NumdecodeError {}
export declare class ParquetError extends NumdecodeError {}
export declare class BpcellsError extends NumdecodeError {}
/** HDF5 files: `file` names the file, `dataset` the object path inside it. */
export declare class Hdf5Error extends NumdecodeError {}
/** Zarr stores: `file` names the store (path or URL) or a key in it, `array` the array's path. */
export declare class ZarrError extends NumdecodeError {}
