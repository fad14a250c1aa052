// openFile / openDirectory: turn what the user passed into a RangeFile (or a directory of them).
import { RangeCache } from './cache.js';
import { HttpBackend } from './http.js';
import { resolveOptions } from './options.js';
import { RangeFile } from './range-file.js';
import { BlobBackend, BufferBackend, LocalBackend, ObjectBackend } from './sources.js';
import { newStats } from './stats.js';

const isNode = () => typeof globalThis.process === 'object' && typeof globalThis.process.versions?.node === 'string';
const isHttp = (s) => /^https?:\/\//i.test(s);

function localPath(s) {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s) && !/^file:/i.test(s)) {
    throw new TypeError(`unsupported URL scheme in ${JSON.stringify(s)} (http, https or a local path)`);
  }
  if (!isNode()) throw new TypeError('local paths need Node; in a browser pass an http(s) URL, a Blob/File or a buffer');
  return /^file:/i.test(s) ? decodeURIComponent(new URL(s).pathname) : s;
}

function newContext(options) {
  const opts = resolveOptions(options);
  return { options: opts, stats: newStats(), cache: new RangeCache(opts.cacheBytes), http: { rangeSupported: undefined } };
}

function backendFor(input, ctx, statsKey) {
  const opts = ctx.options;
  const common = { name: opts.name, stats: ctx.stats, statsKey };
  if (typeof URL !== 'undefined' && input instanceof URL) input = input.href;
  if (typeof input === 'string') {
    if (isHttp(input)) return new HttpBackend(input, opts, { ...common, shared: ctx.http });
    return new LocalBackend(localPath(input), common);
  }
  if (typeof Blob !== 'undefined' && input instanceof Blob) return new BlobBackend(input, common);
  if (input instanceof ArrayBuffer) return new BufferBackend(new Uint8Array(input), common);
  if (ArrayBuffer.isView(input)) return new BufferBackend(new Uint8Array(input.buffer, input.byteOffset, input.byteLength), common);
  if (input && typeof input === 'object') return new ObjectBackend(input, common);
  throw new TypeError(
    `cannot open ${String(input)}: pass a path, an http(s) URL, a Blob/File, an ArrayBuffer or typed array, or a {size, read} object`,
  );
}

/**
 * One file for range reading: a local path (Node), an http(s) URL (string or URL), a Blob/File,
 * an ArrayBuffer or typed array, a {size(), read(start, end)} object or a hyparquet AsyncBuffer.
 */
export function openFile(input, options) {
  const ctx = newContext(options);
  const backend = backendFor(input, ctx, undefined);
  return new RangeFile(backend, ctx);
}

/** A directory of named files sharing stats, cache and concurrency (BPCells matrices). */
export class RangeDirectory {
  constructor(input, options) {
    this._ctx = newContext(options);
    this._files = new Map();
    if (typeof URL !== 'undefined' && input instanceof URL) input = input.href;
    if (typeof input === 'string') {
      if (isHttp(input)) {
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
      throw new TypeError(`cannot open ${String(input)} as a directory: pass a directory path, an http(s) base URL or a {size(name), read(name, start, end)} object`);
    }
  }

  get stats() {
    return this._ctx.stats;
  }

  get options() {
    return this._ctx.options;
  }

  /** Where file `name` lives: its URL or path (what its errors name). */
  location(name) {
    if (this.kind === 'http') return new URL(encodeURIComponent(name), this.name).href;
    if (this.kind === 'local') {
      const sep = this.name.endsWith('/') || this.name.endsWith('\\') ? '' : '/';
      return `${this.name}${sep}${name}`;
    }
    return name;
  }

  /** The RangeFile for `name` (one per name; stats keyed by name). */
  file(name) {
    if (typeof name !== 'string' || name === '' || name.includes('/') || name.includes('\\')) {
      throw new TypeError(`file name must be a plain name inside the directory, got ${JSON.stringify(name)}`);
    }
    let f = this._files.get(name);
    if (!f) {
      const ctx = this._ctx;
      const common = { stats: ctx.stats, statsKey: name };
      let backend;
      if (this.kind === 'http') backend = new HttpBackend(this.location(name), ctx.options, { ...common, shared: ctx.http });
      else if (this.kind === 'local') backend = new LocalBackend(this.location(name), common);
      else {
        const obj = this._obj;
        backend = new ObjectBackend({ size: () => obj.size(name), read: (s, e) => obj.read(name, s, e) }, { ...common, name });
      }
      f = new RangeFile(backend, ctx);
      this._files.set(name, f);
    }
    return f;
  }

  close() {
    for (const f of this._files.values()) f.close();
    this._files.clear();
    this._ctx.cache.clear();
  }
}

export function openDirectory(input, options) {
  return new RangeDirectory(input, options);
}
