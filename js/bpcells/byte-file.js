// One HDF5 file read through the package's range layer (js/io), with I/O errors reported as
// BpcellsError naming the file (like directory sources do for their array files).
// The HDF5 reader keeps its own block cache (hdf5-lazy-file.js), so js/io's cache is turned off
// and ranges are merged there, not here.
import { BpcellsError, IoError } from '../errors.js';
import { openFile } from '../io/index.js';

const IO_OPTIONS = ['retries', 'timeout', 'signal', 'headers', 'fetch', 'maxBytes', 'concurrency', 'retryDelay', 'maxRetryDelay', 'ifRange', 'name'];

function detail(err) {
  const prefix = `${err.file}: `;
  return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
}

/** An IoError (or a bad-argument error of the range layer) as a BpcellsError naming `name`. */
export function asBpcellsError(err, name) {
  if (err instanceof IoError) return new BpcellsError(`${name}: ${detail(err)}`, { file: name, code: err.code, status: err.status, cause: err });
  if (err instanceof TypeError || err instanceof RangeError) return new BpcellsError(err.message, { cause: err });
  return err;
}

async function wrap(name, promise) {
  try {
    return await promise;
  } catch (err) {
    throw asBpcellsError(err, name);
  }
}

/**
 * {name, kind, stats, size(), read(s, e), readRanges(ranges), readSync?(s, e), close()} over a
 * js/io RangeFile: a local path, URL, Blob/File, bytes or {size(), read(start, end)} object.
 */
export function openByteFile(input, options = {}) {
  const io = {};
  for (const k of IO_OPTIONS) if (options?.[k] !== undefined) io[k] = options[k];
  io.cacheBytes = 0;
  io.gap = 0;
  let f;
  try {
    f = openFile(input, io);
  } catch (err) {
    throw asBpcellsError(err, String(input));
  }
  const name = f.name;
  const file = {
    name,
    kind: f.kind,
    stats: f.stats,
    size: () => wrap(name, f.size()),
    read: (s, e) => wrap(name, f.read(s, e)),
    readRanges: (ranges) => wrap(name, f.readRanges(ranges)),
    close: () => f.close(),
  };
  if (typeof f.readSync === 'function') {
    file.readSync = (s, e) => {
      try {
        return f.readSync(s, e);
      } catch (err) {
        throw asBpcellsError(err, name);
      }
    };
  }
  return file;
}
