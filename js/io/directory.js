// RangeDirectory: the files of one directory, by name (a BPCells matrix directory): a local
// directory (Node), an http(s) base URL, or a user object {size(name), read(name, start, end)}.
// Its files share stats (keyed by name), cache and concurrency. Each is a RangeFile called by its
// name in the directory, which is what its errors give as err.file; their messages say where the
// file lives (its path or URL).
import { newContext } from './context.js';
import { HttpBackend } from './http.js';
import { isHttpUrl, localPath } from './location.js';
import { RangeFile } from './range-file.js';
import { LocalBackend, ObjectBackend } from './sources.js';

// Ranges up to this size of files that read synchronously (local files in Node) are read so: a
// pread of a few KiB takes microseconds, far less than a trip through libuv's thread pool, and a
// matrix's open() makes a dozen such reads one after another.
const SYNC_READ_MAX = 1024 * 1024;

export class RangeDirectory {
  constructor(input, options) {
    this._ctx = newContext(options);
    this._files = new Map();
    if (typeof URL !== 'undefined' && input instanceof URL) input = input.href;
    if (typeof input === 'string') {
      if (isHttpUrl(input)) {
        this.kind = 'http';
        this.name = input.endsWith('/') ? input : `${input}/`;
      } else {
        this.kind = 'local';
        this.name = localPath(input);
      }
    } else if (input && typeof input === 'object') {
      if (typeof input.size !== 'function' || typeof input.read !== 'function') {
        throw new TypeError('a directory source object needs size(name) and read(name, start, end) methods');
      }
      this.kind = 'object';
      this.name = this._ctx.options.name ?? 'custom source';
      this._obj = input;
    } else {
      throw new TypeError(
        `cannot open ${String(input)} as a directory: pass a directory path, an http(s) base URL or a {size(name), read(name, start, end)} object`,
      );
    }
  }

  get stats() {
    return this._ctx.stats;
  }

  get options() {
    return this._ctx.options;
  }

  /** HTTP: true/false once a ranged request has been answered with 206/200; undefined until then. */
  get rangeSupported() {
    return this._ctx.http.rangeSupported;
  }

  /** Where file `name` lives: its URL or path. */
  location(name) {
    if (this.kind === 'http') return new URL(encodeURIComponent(name), this.name).href;
    if (this.kind === 'local') {
      const sep = this.name.endsWith('/') || this.name.endsWith('\\') ? '' : '/';
      return `${this.name}${sep}${name}`;
    }
    return name;
  }

  /** The RangeFile for `name` (one per name). A name with a path separator is a TypeError. */
  file(name) {
    if (typeof name !== 'string' || name === '' || name.includes('/') || name.includes('\\')) {
      throw new TypeError(`file name must be a plain name inside the directory, got ${JSON.stringify(name)}`);
    }
    let f = this._files.get(name);
    if (!f) {
      const ctx = this._ctx;
      const common = { name, stats: ctx.stats, statsKey: name };
      let backend;
      if (this.kind === 'http') backend = new HttpBackend(this.location(name), ctx.options, { ...common, shared: ctx.http });
      else if (this.kind === 'local') backend = new LocalBackend(this.location(name), common);
      else {
        const obj = this._obj;
        backend = new ObjectBackend({ size: () => obj.size(name), read: (s, e) => obj.read(name, s, e) }, common);
      }
      f = new RangeFile(backend, ctx);
      this._files.set(name, f);
    }
    return f;
  }

  /** Size in bytes of file `name`. */
  size(name) {
    return this.file(name).size();
  }

  /** Exactly bytes [start, end) of file `name` (small ranges of local files read synchronously). */
  async read(name, start, end) {
    const f = this.file(name);
    return f.readSync && end - start <= SYNC_READ_MAX ? f.readSync(start, end) : f.read(start, end);
  }

  /** The whole of file `name`. */
  async readAll(name) {
    const f = this.file(name);
    if (!f.readSync) return f.readAll();
    const size = await f.size();
    return size <= SYNC_READ_MAX ? f.readSync(0, size) : f.read(0, size);
  }

  /**
   * For a file that reads synchronously (local files in Node): read(start, end, target) puts bytes
   * [start, end) of `name` into the Uint8Array `target` (e.g. wasm memory) and returns it; else null.
   */
  syncReader(name) {
    const f = this.file(name);
    return f.readSync ? (start, end, target) => f.readSync(start, end, target) : null;
  }

  /** Closes file descriptors and drops cached bytes (files reopen if read again). */
  close() {
    for (const f of this._files.values()) f.close();
    this._files.clear();
    this._ctx.cache.clear();
  }

  toString() {
    return this.name;
  }
}

export function openDirectory(input, options) {
  return new RangeDirectory(input, options);
}
