// Byte sources that are not HTTP: a local file (Node), a Blob/File, an in-memory buffer, and a
// user object ({size(), read(start, end)} or hyparquet's {byteLength, slice(start, end)}).
// Each offers size(), fetch(start, end) -> exactly those bytes or an IoError, and where truly
// synchronous reading exists, readSync(start, end). Stats count one request per read call.
import { bytesOf } from '../bytes.js';
import { CODES, checkRange, ioError, truncatedError } from './errors.js';
import { countBytes, countRequest, startRequest } from './stats.js';

// What a user source's read() returned, as bytes; anything else is an IoError naming the call.
function returnedBytes(x, what, file) {
  const bytes = bytesOf(x);
  if (bytes === null) {
    throw ioError(file, `${file}: ${what} returned ${Object.prototype.toString.call(x)}, expected a Uint8Array or ArrayBuffer`);
  }
  return bytes;
}

const message = (err) => err?.message ?? String(err);

// readSync(start, end, target): the bytes land in `target` (e.g. a buffer in wasm memory, so that
// a local file is read there without a JS copy); without one, a new array.
export function intoTarget(target, start, end) {
  if (target === undefined) return new Uint8Array(end - start);
  if (!(target instanceof Uint8Array) || target.length !== end - start) {
    throw new TypeError(`readSync(${start}, ${end}, target): target must be a Uint8Array of ${end - start} bytes`);
  }
  return target;
}

// ---------------------------------------------------------------------------------------------
/** Node's fs without a static import (the package also runs in browsers). */
function nodeFsSync() {
  return globalThis.process?.getBuiltinModule?.('node:fs') ?? null;
}

// A RangeFile nobody closed still gives its descriptor back when it is garbage collected.
const fdRegistry =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((fd) => {
        try {
          nodeFsSync()?.closeSync(fd);
        } catch {
          // already closed
        }
      })
    : null;

export class LocalBackend {
  constructor(path, { name, stats, statsKey }) {
    this.path = path;
    this.name = name ?? path;
    this.kind = 'local';
    this.stats = stats;
    this.statsKey = statsKey ?? this.name;
    this.fd = null;
    this._size = null;
    if (nodeFsSync()) this.readSync = (start, end, target) => this._readSync(start, end, target);
  }

  _error(err) {
    if (err?.code === 'ENOENT') {
      return ioError(this.name, `${this.name}: file missing (no such file ${this.path})`, { code: CODES.NOT_FOUND, cause: err });
    }
    // (the file's own fault, not the medium's: not ERR_NETWORK)
    if (err?.code === 'EISDIR') return ioError(this.name, `${this.name}: not a regular file (${this.path} is a directory)`, { code: CODES.BAD_DATA, cause: err });
    if (err?.code === 'ENOTREG') return ioError(this.name, `${this.name}: not a regular file (${this.path} is a FIFO, socket or device)`, { code: CODES.BAD_DATA, cause: err });
    return ioError(this.name, `${this.name}: cannot read ${this.path}: ${message(err)}`, { cause: err });
  }

  async _fs() {
    this._fsMod ??= nodeFsSync() ?? (await import(/* webpackIgnore: true */ 'node:fs'));
    return this._fsMod;
  }

  _open(fs) {
    if (this.fd === null) {
      try {
        // Non-blocking: a FIFO where a file should be would block the thread in open() for good;
        // it opens at once and is refused below (regular files ignore the flag).
        const fd = fs.openSync(this.path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
        const st = fs.fstatSync(fd);
        if (!st.isFile()) {
          fs.closeSync(fd);
          throw Object.assign(new Error('not a regular file'), { code: st.isDirectory() ? 'EISDIR' : 'ENOTREG' });
        }
        this.fd = fd;
        this._size = st.size;
        fdRegistry?.register(this, fd, this);
      } catch (err) {
        throw this._error(err);
      }
    }
    return this.fd;
  }

  async size() {
    this._open(await this._fs());
    return this._size;
  }

  sizeSync() {
    return this._size;
  }

  async fetch(start, end) {
    const fs = await this._fs();
    const fd = this._open(fs);
    const out = new Uint8Array(end - start);
    let done = 0;
    const finished = startRequest(this.stats, this.statsKey);
    try {
      while (done < out.length) {
        const n = await new Promise((resolve, reject) =>
          fs.read(fd, out, done, out.length - done, start + done, (err, bytesRead) => (err ? reject(err) : resolve(bytesRead))),
        );
        if (n === 0) break;
        done += n;
      }
    } catch (err) {
      throw this._error(err);
    } finally {
      finished();
      countBytes(this.stats, this.statsKey, done);
    }
    if (done < out.length) throw truncatedError(this.name, start, end, start + done);
    return out;
  }

  _readSync(start, end, target) {
    checkRange(start, end);
    const fs = nodeFsSync();
    const fd = this._open(fs);
    const out = intoTarget(target, start, end);
    let done = 0;
    countRequest(this.stats, this.statsKey);
    try {
      while (done < out.length) {
        const n = fs.readSync(fd, out, done, out.length - done, start + done);
        if (n === 0) break;
        done += n;
      }
    } catch (err) {
      throw this._error(err);
    } finally {
      countBytes(this.stats, this.statsKey, done);
    }
    if (done < out.length) throw truncatedError(this.name, start, end, start + done);
    return out;
  }

  close() {
    if (this.fd !== null) {
      try {
        fdRegistry?.unregister(this);
        (nodeFsSync() ?? this._fsMod)?.closeSync(this.fd);
      } catch {
        // already closed: nothing to release
      }
      this.fd = null;
    }
  }
}

// ---------------------------------------------------------------------------------------------
export class BufferBackend {
  constructor(bytes, { name, stats, statsKey }) {
    this.bytes = bytes;
    this.name = name ?? `buffer of ${bytes.length} bytes`;
    this.kind = 'buffer';
    this.stats = stats;
    this.statsKey = statsKey ?? this.name;
  }

  async size() {
    return this.bytes.length;
  }

  sizeSync() {
    return this.bytes.length;
  }

  peek(start, end) {
    return end <= this.bytes.length ? this.bytes.subarray(start, end) : null;
  }

  readSync(start, end, target) {
    checkRange(start, end);
    if (end > this.bytes.length) throw truncatedError(this.name, start, end, this.bytes.length);
    countRequest(this.stats, this.statsKey);
    countBytes(this.stats, this.statsKey, end - start);
    const bytes = this.bytes.subarray(start, end);
    if (target === undefined) return bytes;
    intoTarget(target, start, end).set(bytes);
    return target;
  }

  async fetch(start, end) {
    return this.readSync(start, end);
  }

  close() {}
}

// ---------------------------------------------------------------------------------------------
export class BlobBackend {
  constructor(blob, { name, stats, statsKey }) {
    this.blob = blob;
    this.name = name ?? (typeof blob.name === 'string' && blob.name ? `File ${blob.name}` : `Blob of ${blob.size} bytes`);
    this.kind = 'blob';
    this.stats = stats;
    this.statsKey = statsKey ?? this.name;
    // FileReaderSync exists only inside Web Workers: the one place a Blob reads synchronously.
    if (typeof globalThis.FileReaderSync === 'function') this.readSync = (start, end, target) => this._readSync(start, end, target);
  }

  async size() {
    return this.blob.size;
  }

  sizeSync() {
    return this.blob.size;
  }

  async fetch(start, end) {
    if (end > this.blob.size) throw truncatedError(this.name, start, end, this.blob.size);
    const finished = startRequest(this.stats, this.statsKey);
    let buf;
    try {
      buf = new Uint8Array(await this.blob.slice(start, end).arrayBuffer());
    } catch (err) {
      // A File whose disk copy changed or vanished after it was picked fails here (NotReadableError).
      throw ioError(this.name, `${this.name}: cannot read bytes [${start}, ${end}): ${message(err)}`, { cause: err });
    } finally {
      finished();
    }
    countBytes(this.stats, this.statsKey, buf.length);
    if (buf.length !== end - start) throw truncatedError(this.name, start, end, start + buf.length);
    return buf;
  }

  _readSync(start, end, target) {
    checkRange(start, end);
    if (end > this.blob.size) throw truncatedError(this.name, start, end, this.blob.size);
    countRequest(this.stats, this.statsKey);
    let buf;
    try {
      buf = new Uint8Array(new globalThis.FileReaderSync().readAsArrayBuffer(this.blob.slice(start, end)));
    } catch (err) {
      throw ioError(this.name, `${this.name}: cannot read bytes [${start}, ${end}): ${message(err)}`, { cause: err });
    }
    countBytes(this.stats, this.statsKey, buf.length);
    if (buf.length !== end - start) throw truncatedError(this.name, start, end, start + buf.length);
    if (target === undefined) return buf;
    intoTarget(target, start, end).set(buf);
    return target;
  }

  close() {}
}

// ---------------------------------------------------------------------------------------------
/**
 * A user object: { size(), read(start, end) } (both may return promises), or hyparquet's
 * AsyncBuffer { byteLength, slice(start, end) }. size() returning null/undefined or throwing
 * means the file does not exist.
 */
export class ObjectBackend {
  constructor(obj, { name, stats, statsKey }) {
    const plain = typeof obj?.size === 'function' && typeof obj?.read === 'function';
    const asyncBuffer = typeof obj?.slice === 'function' && Number.isSafeInteger(obj?.byteLength);
    if (!plain && !asyncBuffer) {
      throw new TypeError('a source object needs size() and read(start, end) methods, or byteLength and slice(start, end)');
    }
    this.obj = obj;
    this.plain = plain;
    this.name = name ?? 'custom source';
    this.kind = 'object';
    this.stats = stats;
    this.statsKey = statsKey ?? this.name;
    this._size = plain ? null : obj.byteLength;
  }

  async size() {
    if (this._size !== null) return this._size;
    let s;
    try {
      s = await this.obj.size();
    } catch (err) {
      throw ioError(this.name, `${this.name}: file missing or unreadable: size() threw: ${message(err)}`, { cause: err });
    }
    if (s === null || s === undefined) throw ioError(this.name, `${this.name}: file missing (size() returned ${s})`, { code: CODES.NOT_FOUND });
    if (!Number.isSafeInteger(s) || s < 0) throw ioError(this.name, `${this.name}: size() returned ${String(s)}, expected a byte count`);
    this._size = s;
    return s;
  }

  sizeSync() {
    return this._size;
  }

  async fetch(start, end) {
    const size = await this.size();
    if (end > size) throw truncatedError(this.name, start, end, size);
    const call = this.plain ? `read(${start}, ${end})` : `slice(${start}, ${end})`;
    const finished = startRequest(this.stats, this.statsKey);
    let got;
    try {
      got = await (this.plain ? this.obj.read(start, end) : this.obj.slice(start, end));
    } catch (err) {
      throw ioError(this.name, `${this.name}: ${call} threw: ${message(err)}`, { cause: err });
    } finally {
      finished();
    }
    const out = returnedBytes(got, call, this.name);
    countBytes(this.stats, this.statsKey, out.length);
    if (out.length !== end - start) {
      throw ioError(this.name, `${this.name}: ${call} returned ${out.length} bytes, expected ${end - start} (truncated?)`);
    }
    return out;
  }

  close() {}
}
