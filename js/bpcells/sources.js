// Where the files of a BPCells matrix directory come from: thin adapters over the package's one
// range-reading layer (js/io), kept for compatibility (index.d.ts, README). Every source offers
//   size(name)              -> Promise<number>      file size in bytes
//   read(name, start, end)  -> Promise<Uint8Array>  exactly bytes [start, end) or an error
//   readAll(name)           -> Promise<Uint8Array>  the whole file
// and a live `stats` object {requests, bytes, retries, files: {name: {requests, bytes}}}.
// I/O errors (IoError) come out as BpcellsError naming the array file, with the IoError as
// `cause` and its code (ERR_NETWORK, ERR_ABORTED, ERR_CHANGED).
import { BpcellsError, IoError } from '../errors.js';
import { openDirectory } from '../io/index.js';

export { BpcellsError };

// The open() options that belong to the I/O layer (the rest, e.g. prefetchBytes, are the reader's).
const IO_OPTIONS = ['retries', 'timeout', 'signal', 'headers', 'fetch', 'maxBytes', 'cacheBytes', 'blockSize', 'gap', 'concurrency', 'retryDelay', 'maxRetryDelay', 'ifRange'];

function ioOptions(options = {}) {
  const out = {};
  for (const k of IO_OPTIONS) if (options?.[k] !== undefined) out[k] = options[k];
  return out;
}

const SYNC_READ_MAX = 1024 * 1024;

function checkRange(name, start, end) {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new BpcellsError(`${name}: invalid byte range [${start}, ${end})`, { file: name });
  }
}

// The I/O layer's message without its own file prefix (the URL or path stays in the text).
function detail(err) {
  const prefix = `${err.file}: `;
  return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
}

class DirectorySource {
  constructor(input, options, kind) {
    try {
      this.io = openDirectory(input, ioOptions(options));
    } catch (err) {
      if (err instanceof TypeError || err instanceof RangeError) throw new BpcellsError(err.message, { cause: err });
      throw err;
    }
    this.kind = kind;
  }

  get stats() {
    return this.io.stats;
  }

  _wrap(name, err) {
    if (!(err instanceof IoError)) return err;
    return new BpcellsError(`${name}: ${detail(err)}`, { file: name, code: err.code, status: err.status, cause: err });
  }

  async _call(name, fn) {
    let file;
    try {
      file = this.io.file(name);
    } catch (err) {
      throw new BpcellsError(`${name}: ${err.message}`, { file: name, cause: err });
    }
    try {
      return await fn(file);
    } catch (err) {
      throw this._wrap(name, err);
    }
  }

  size(name) {
    return this._call(name, (f) => f.size());
  }

  // Files that read synchronously (local files in Node) are read so when the range is small: a
  // pread of a few KiB takes microseconds, far less than a trip through libuv's thread pool, and
  // open() makes a dozen such reads one after another.
  async read(name, start, end) {
    checkRange(name, start, end);
    return this._call(name, (f) => (f.readSync && end - start <= SYNC_READ_MAX ? f.readSync(start, end) : f.read(start, end)));
  }

  readAll(name) {
    return this._call(name, async (f) => {
      if (!f.readSync) return f.readAll();
      const size = await f.size();
      return size <= SYNC_READ_MAX ? f.readSync(0, size) : f.read(0, size);
    });
  }

  /**
   * For files that read synchronously (local files in Node): readInto(start, end, target) puts
   * bytes [start, end) of `name` into the Uint8Array `target` (e.g. wasm memory), errors as for
   * read(); else null.
   */
  syncReader(name) {
    let file;
    try {
      file = this.io.file(name);
    } catch {
      return null; // a bad name: read() reports it
    }
    if (typeof file.readSync !== 'function') return null;
    return (start, end, target) => {
      checkRange(name, start, end);
      let got;
      try {
        got = file.readSync(start, end, target);
      } catch (err) {
        throw this._wrap(name, err);
      }
      if (got !== target) target.set(got); // an I/O layer that returns the bytes instead
      return target;
    };
  }

  /** Closes file descriptors and drops cached bytes. */
  close() {
    this.io.close();
  }
}

/** A matrix directory on the local file system (Node only). */
export class LocalDirSource extends DirectorySource {
  constructor(dir, options) {
    super(String(dir), options, 'local');
    this.dir = String(dir);
  }

  _wrap(name, err) {
    if (err instanceof IoError && err.cause?.code === 'ENOENT') {
      return new BpcellsError(`${name}: file missing from the matrix directory ${this.dir}`, { file: name, code: err.code, cause: err });
    }
    return super._wrap(name, err);
  }

  toString() {
    return this.dir;
  }
}

/** A user object {size(name), read(name, start, end)} (both may return promises). */
export class ObjectSource extends DirectorySource {
  constructor(obj, options) {
    if (typeof obj?.size !== 'function' || typeof obj?.read !== 'function') {
      throw new BpcellsError('a source object needs size(name) and read(name, start, end) methods');
    }
    super(obj, options, 'object');
    this.obj = obj;
  }

  toString() {
    return 'custom source';
  }
}

/**
 * Files under an HTTP(S) base URL, read by range with retries (network errors, 5xx, 408, 429),
 * If-Range pinning and a bounded cache; a server that ignores Range still works (each file
 * fetched once, whole). Options: those of js/io (maxBytes, timeout, signal, fetch, headers,
 * retries, ...).
 */
export class HttpSource extends DirectorySource {
  constructor(baseUrl, options = {}) {
    super(baseUrl instanceof URL ? baseUrl.href : String(baseUrl), options, 'http');
    this.base = this.io.name;
  }

  /** true/false once a ranged request has been answered with 206/200. */
  get rangeSupported() {
    return this.io._ctx.http.rangeSupported;
  }

  url(name) {
    return this.io.location(name);
  }

  toString() {
    return this.base;
  }
}

function isUrl(s) {
  return /^https?:\/\//i.test(s);
}

/**
 * Turns what the user passed to open() into a source: an http(s) URL string or URL object, a
 * local directory path (Node), an object with size/read, or a source made here.
 */
export function toSource(source, options = {}) {
  if (source instanceof DirectorySource) return source;
  if (typeof URL !== 'undefined' && source instanceof URL) source = source.href;
  if (typeof source === 'string') {
    if (isUrl(source)) return new HttpSource(source, options);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) && !/^file:/i.test(source)) {
      throw new BpcellsError(`unsupported URL scheme in ${JSON.stringify(source)} (http, https or a local path)`);
    }
    const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';
    if (!isNode) throw new BpcellsError(`local paths need Node; in a browser pass an http(s) URL or a {size, read} object`);
    if (/^file:/i.test(source)) source = decodeURIComponent(new URL(source).pathname);
    return new LocalDirSource(source, options);
  }
  if (source && typeof source === 'object') return new ObjectSource(source, options);
  throw new BpcellsError(`cannot open ${String(source)}: pass a directory path, an http(s) URL or a {size, read} object`);
}
