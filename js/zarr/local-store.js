// A zarrita store over a local directory (Node) that reads each key with synchronous file calls.
// A Zarr chunk is a small file read whole: open, stat, read and close take microseconds, far
// less than four trips through libuv's thread pool, which is what zarrita's FileSystemStore
// (fs.promises.readFile) pays per chunk; on a machine of two cores that bookkeeping cost as much
// CPU as decoding the chunks. (js/io reads small ranges of local files synchronously for the
// same reason.) The answers are promises, as zarrita expects of every store.
import { CODES, NumdecodeError } from '../errors.js';

const NOT_THERE = new Set(['ENOENT', 'ENOTDIR']);

// A wrapper that passes a LocalStore's chunk bytes through unchanged (open-store.js: the metadata
// layers list() and openArray() put around it) names it here, so that read() still reads the
// folder's chunks as a local folder (lent bytes, files read ahead, workers reading files themselves).
export const LOCAL_FOLDER = Symbol('numdecode.zarr.localFolder');

/** The LocalStore a store is, or passes chunks through from unchanged; else null. */
export function localFolderOf(store) {
  return store instanceof LocalStore ? store : (store?.[LOCAL_FOLDER] ?? null);
}

function nodeModules() {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs');
  const path = globalThis.process?.getBuiltinModule?.('node:path');
  if (!fs || !path) throw new NumdecodeError('zarr LocalStore: local directories are read in Node only', { code: CODES.UNSUPPORTED });
  return { fs, path };
}

const scratch = new Uint8Array(1 << 20);

// Fills `target` with the file's bytes from `start`: how many there were (fewer if it ends first).
function readFully(fs, fd, target, start) {
  let done = 0;
  while (done < target.length) {
    const n = fs.readSync(fd, target, done, target.length - done, start + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

// `length` bytes of the file from `start` (fewer if it ends first).
function readAll(fs, fd, length, start = 0) {
  const out = new Uint8Array(length);
  const done = readFully(fs, fd, out, start);
  return done === length ? out : out.subarray(0, done);
}

// Keys made of non-empty parts, none "." or "..", after at most one leading "/".
const PLAIN_KEY = /^\/?(?!\.\.?(?:\/|$))[^/]+(?:\/(?!\.\.?(?:\/|$))[^/]+)*$/;

export class LocalStore {
  #fs;
  #path;
  #rootSlash;

  /**
   * @param {string} root the store's directory
   * @param {{readAhead?: boolean}} [options] readAhead: false keeps a read's file calls on its own
   *   thread (no reader thread: ~10 MB less while one would live; js/io/read-ahead.js)
   */
  constructor(root, options = {}) {
    if (typeof root !== 'string' || root === '') throw new TypeError('zarr LocalStore: pass the store\'s directory');
    const { fs, path } = nodeModules();
    this.#fs = fs;
    this.#path = path;
    this.root = path.resolve(root);
    this.#rootSlash = this.root.endsWith(path.sep) ? this.root : this.root + path.sep; // a root ("/", "C:\\") ends in one
    this.readAhead = options?.readAhead !== false;
  }

  // The file of a key ("/t2m/c/0/1"), refused when it would lie outside the store's directory (a
  // chunk key separator from hostile metadata such as "/../").
  #file(key) {
    // A plain key (no empty, "." or ".." part) names root/key as it is: path.resolve's answer for
    // it, without its cost (~0.5 µs and ~900 bytes of garbage a key, once per chunk of a read).
    if (this.#path.sep === '/' && PLAIN_KEY.test(key)) return `${this.#rootSlash}${key.charCodeAt(0) === 47 ? key.slice(1) : key}`;
    const file = this.#path.resolve(this.root, `.${key.startsWith('/') ? '' : '/'}${key}`);
    if (file !== this.root && !file.startsWith(this.#rootSlash)) {
      throw new NumdecodeError(`zarr LocalStore: the key ${JSON.stringify(key)} points outside ${this.root}`, { code: CODES.BAD_DATA, file: key });
    }
    return file;
  }

  // The open file of a key, or undefined when there is none.
  #open(key) {
    try {
      // Non-blocking: a FIFO where a file should be would block the thread in open() for good
      // (regular files ignore the flag; a FIFO reads as empty, or EAGAIN, named below).
      return this.#fs.openSync(this.#file(key), this.#fs.constants.O_RDONLY | (this.#fs.constants.O_NONBLOCK ?? 0));
    } catch (err) {
      if (NOT_THERE.has(err?.code)) return undefined;
      throw this.#named(key, err);
    }
  }

  // A directory (opening it fails on some systems, reading it on all) or a FIFO where a value was
  // asked for, named as such, not as Node's bare EISDIR / EAGAIN / ESPIPE; other errors as they are.
  #named(key, err) {
    if (err?.code === 'EAGAIN' || err?.code === 'ESPIPE') {
      return new NumdecodeError(`zarr LocalStore: ${JSON.stringify(key)} in ${this.root} is not a regular file`, { code: CODES.BAD_DATA, file: key, cause: err });
    }
    if (err?.code !== 'EISDIR') return err;
    return new NumdecodeError(
      `zarr LocalStore: ${JSON.stringify(key)} is a directory of ${this.root}, not a stored value (zarrita's get asks for one when a selection has fewer entries than the array has dimensions: give one per dimension, null for whole ones)`,
      { code: CODES.BAD_DATA, file: key, cause: err },
    );
  }

  // fn(fd) on the open file of `key`, closed afterwards; undefined when there is none. A directory
  // or a FIFO opens but cannot be read: #named names it.
  #read(key, fn) {
    const fd = this.#open(key);
    if (fd === undefined) return undefined;
    try {
      return fn(fd);
    } catch (err) {
      throw this.#named(key, err);
    } finally {
      this.#fs.closeSync(fd);
    }
  }

  // zarrita wants promises: the answer of a read done now, or its failure.
  #answer(signal, fn) {
    signal?.throwIfAborted();
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * The whole file of `key` read now, or undefined when there is none (what get() answers).
   * @returns {Uint8Array | undefined}
   */
  readSync(key) {
    // readView's bytes, copied out of the kept buffer when they lie there
    const bytes = this.#lend(key);
    return bytes?.buffer === scratch.buffer ? bytes.slice() : bytes;
  }

  /**
   * As readSync, but a file of up to 1 MiB comes as a view of one reused buffer, valid until the
   * next call: for a reader that consumes it at once (js/zarr/fetch.js, and a read's workers in
   * js/zarr/pool-job.js), no fresh array per chunk
   * (thousands of small ones, garbage held until V8 collects it: ~6 MB over a read's output).
   * @returns {Uint8Array | undefined}
   */
  readView(key) {
    return this.#lend(key);
  }

  // readView's read, also readSync's (not through readView, which a subclass may count or change).
  #lend(key) {
    return this.#read(key, (fd) => {
      // One read into a kept buffer answers most chunks: open, read, close, where a read of the
      // file's size first (readFileSync) would also stat it.
      const first = this.#fs.readSync(fd, scratch, 0, scratch.length, 0);
      if (first < scratch.length) return scratch.subarray(0, first);
      return readAll(this.#fs, fd, this.#fs.fstatSync(fd).size);
    });
  }

  /**
   * Bytes [offset, offset + target.length) of the file of `key` read into `target`: how many were
   * there, or undefined when there is no file (a shard's chunks into a read's one buffer, fetch.js).
   * @param {string} key @param {number} offset @param {Uint8Array} target
   * @returns {number | undefined}
   */
  readInto(key, offset, target) {
    return this.#read(key, (fd) => readFully(this.#fs, fd, target, offset));
  }

  /**
   * Bytes [offset, offset + length) of the file of `key`, lent as readView lends (up to 1 MiB as a
   * view of one reused buffer, valid until the next call): a shard's chunk read by a worker
   * (js/zarr/pool-job.js). Fewer bytes when the file ends first; undefined when there is no file.
   * @param {string} key @param {number} offset @param {number} length
   * @returns {Uint8Array | undefined}
   */
  readRangeView(key, offset, length) {
    const target = length <= scratch.length ? scratch.subarray(0, length) : new Uint8Array(length);
    const got = this.readInto(key, offset, target);
    return got === undefined ? undefined : target.subarray(0, got);
  }

  /**
   * The path of the file of `key`; refused (NumdecodeError) when it would lie outside the folder.
   * For js/io/read-ahead.js, whose reader thread reads a read's chunk files ahead (js/zarr/fetch.js).
   * @param {string} key @returns {string}
   */
  fileOf(key) {
    return this.#file(key);
  }

  /** The whole file of `key`, or undefined when there is none. */
  get(key, options) {
    return this.#answer(options?.signal, () => this.readSync(key));
  }

  /** {offset, length} or {suffixLength} of the file of `key`, or undefined when there is none. */
  getRange(key, range, options) {
    return this.#answer(options?.signal, () =>
      this.#read(key, (fd) => {
        const size = this.#fs.fstatSync(fd).size;
        const start = 'suffixLength' in range ? Math.max(0, size - range.suffixLength) : range.offset;
        const length = Math.max(0, Math.min('suffixLength' in range ? range.suffixLength : range.length, size - start));
        return readAll(this.#fs, fd, length, start);
      }),
    );
  }
}
