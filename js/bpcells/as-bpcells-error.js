// What a matrix raises: every failure is a BpcellsError (or a TypeError / RangeError for a bad
// call). Errors of the layers below, js/io's IoError and js/hdf5's Hdf5Error, become one with the
// same code, location and status and the original as `cause`; their messages already say what and
// where. As everywhere in BPCells, `file` names the array: for HDF5 the dataset when there is one.
import { BpcellsError, CODES, Hdf5Error, IoError } from '../errors.js';

/** `err` as a matrix raises it; `source` (the matrix's files) words a file missing from a local directory. */
export function asBpcellsError(err, source) {
  if (!(err instanceof IoError || err instanceof Hdf5Error)) return err;
  const { code, dataset, status } = err;
  const file = dataset ?? err.file;
  const message =
    code === CODES.NOT_FOUND && source?.kind === 'local' ? `${file}: file missing from the matrix directory ${source.name}` : err.message;
  return new BpcellsError(message, { code, file, dataset, status, cause: err });
}

/** The promise, with its rejection turned by asBpcellsError. */
export async function settled(promise, source) {
  try {
    return await promise;
  } catch (err) {
    throw asBpcellsError(err, source);
  }
}
