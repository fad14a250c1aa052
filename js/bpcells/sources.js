// Where the files of a BPCells matrix directory come from. Every source offers
//   size(name)              -> Promise<number>      file size in bytes
//   read(name, start, end)  -> Promise<Uint8Array>  exactly bytes [start, end) or an error
//   readAll(name)           -> Promise<Uint8Array>  the whole file
// and a `stats` object {requests, bytes, files: {name: {requests, bytes}}} counting what was
// actually fetched. Three kinds: a local directory (Node), an HTTP(S) base URL (fetch with
// Range requests) and a user object {size(name), read(name, start, end)}.

import { BpcellsError } from '../errors.js';

export { BpcellsError };

function newStats() {
  return { requests: 0, bytes: 0, files: {} };
}

function count(stats, name, bytes, requests = 1) {
  stats.requests += requests;
  stats.bytes += bytes;
  const f = (stats.files[name] ??= { requests: 0, bytes: 0 });
  f.requests += requests;
  f.bytes += bytes;
}

function checkRange(name, start, end) {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new BpcellsError(`${name}: invalid byte range [${start}, ${end})`, { file: name });
  }
}

function truncated(name, start, end, size) {
  return new BpcellsError(
    `${name}: needs bytes [${start}, ${end}) but the file has only ${size} bytes (truncated?)`,
    { file: name },
  );
}

function toU8(x, what) {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  throw new BpcellsError(`${what} returned ${Object.prototype.toString.call(x)}, expected Uint8Array or ArrayBuffer`);
}

// ---------------------------------------------------------------------------------------------
/** A matrix directory on the local file system (Node only). */
export class LocalDirSource {
  constructor(dir) {
    this.dir = String(dir);
    this.kind = 'local';
    this.stats = newStats();
    this._sizes = new Map();
  }

  async _fs() {
    this._fsMod ??= await import('node:fs/promises');
    this._pathMod ??= await import('node:path');
    return this._fsMod;
  }

  async _path(name) {
    await this._fs();
    return this._pathMod.join(this.dir, name);
  }

  _error(name, err) {
    if (err?.code === 'ENOENT') {
      return new BpcellsError(`${name}: file missing from the matrix directory ${this.dir}`, { file: name, cause: err });
    }
    return new BpcellsError(`${name}: cannot read ${this.dir}: ${err?.message ?? err}`, { file: name, cause: err });
  }

  async size(name) {
    if (this._sizes.has(name)) return this._sizes.get(name);
    const fs = await this._fs();
    try {
      const st = await fs.stat(await this._path(name));
      if (!st.isFile()) throw new BpcellsError(`${name}: not a regular file in ${this.dir}`, { file: name });
      this._sizes.set(name, st.size);
      return st.size;
    } catch (err) {
      if (err instanceof BpcellsError) throw err;
      throw this._error(name, err);
    }
  }

  async read(name, start, end) {
    checkRange(name, start, end);
    const fs = await this._fs();
    let handle;
    try {
      handle = await fs.open(await this._path(name), 'r');
      const out = new Uint8Array(end - start);
      let done = 0;
      while (done < out.length) {
        const { bytesRead } = await handle.read(out, done, out.length - done, start + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      count(this.stats, name, done);
      if (done < out.length) throw truncated(name, start, end, start + done);
      return out;
    } catch (err) {
      if (err instanceof BpcellsError) throw err;
      throw this._error(name, err);
    } finally {
      await handle?.close();
    }
  }

  async readAll(name) {
    const fs = await this._fs();
    try {
      const buf = await fs.readFile(await this._path(name));
      count(this.stats, name, buf.length);
      this._sizes.set(name, buf.length);
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (err) {
      throw this._error(name, err);
    }
  }

  toString() {
    return this.dir;
  }
}

// ---------------------------------------------------------------------------------------------
/** A user object {size(name), read(name, start, end)} (both may return promises). */
export class ObjectSource {
  constructor(obj) {
    if (typeof obj?.size !== 'function' || typeof obj?.read !== 'function') {
      throw new BpcellsError('a source object needs size(name) and read(name, start, end) methods');
    }
    this.obj = obj;
    this.kind = 'object';
    this.stats = newStats();
    this._sizes = new Map();
  }

  // size(name) returning null/undefined or throwing means the file does not exist.
  async size(name) {
    if (this._sizes.has(name)) return this._sizes.get(name);
    let s;
    try {
      s = await this.obj.size(name);
    } catch (err) {
      throw new BpcellsError(`${name}: file missing or unreadable: source.size() threw: ${err?.message ?? err}`, {
        file: name,
        cause: err,
      });
    }
    if (s === null || s === undefined) throw new BpcellsError(`${name}: file missing (source.size() returned ${s})`, { file: name });
    if (!Number.isSafeInteger(s) || s < 0) {
      throw new BpcellsError(`${name}: source.size() returned ${String(s)}, expected a byte count`, { file: name });
    }
    this._sizes.set(name, s);
    return s;
  }

  async read(name, start, end) {
    checkRange(name, start, end);
    const size = await this.size(name);
    if (end > size) throw truncated(name, start, end, size);
    let got;
    try {
      got = await this.obj.read(name, start, end);
    } catch (err) {
      throw new BpcellsError(`${name}: source.read(${start}, ${end}) threw: ${err?.message ?? err}`, { file: name, cause: err });
    }
    const out = toU8(got, `source.read(${JSON.stringify(name)})`);
    count(this.stats, name, out.length);
    if (out.length !== end - start) {
      throw new BpcellsError(`${name}: source.read(${start}, ${end}) returned ${out.length} bytes, expected ${end - start}`, {
        file: name,
      });
    }
    return out;
  }

  async readAll(name) {
    return this.read(name, 0, await this.size(name));
  }

  toString() {
    return 'custom source';
  }
}

// ---------------------------------------------------------------------------------------------
/**
 * Files under an HTTP(S) base URL, fetched with Range requests. A server that ignores Range
 * (answers 200 with the whole file) still works: the whole file is kept and later ranges of
 * it are served from memory. Options: maxBytes (total bytes this source may download),
 * timeout (ms per request), signal (AbortSignal), fetch (a fetch implementation), headers.
 */
export class HttpSource {
  constructor(baseUrl, options = {}) {
    const base = String(baseUrl);
    this.base = base.endsWith('/') ? base : `${base}/`;
    this.kind = 'http';
    this.stats = newStats();
    this.maxBytes = options.maxBytes ?? Infinity;
    this.timeout = options.timeout ?? 60000;
    this.signal = options.signal;
    this.headers = options.headers ?? {};
    // Called as a plain function: browsers refuse fetch() invoked as a method of another object.
    this._fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    if (typeof this._fetch !== 'function') throw new BpcellsError('no fetch() available; pass options.fetch');
    if (!(this.maxBytes > 0)) throw new BpcellsError(`options.maxBytes must be a positive number, got ${this.maxBytes}`);
    if (!(this.timeout > 0)) throw new BpcellsError(`options.timeout must be a positive number of ms, got ${this.timeout}`);
    this._sizes = new Map();
    this._whole = new Map(); // name -> Promise<Uint8Array> when the server ignored Range
    this.rangeSupported = undefined; // learnt from the first ranged answer
  }

  url(name) {
    return new URL(encodeURIComponent(name), this.base).href;
  }

  // One request with timeout, abort and byte limit; returns {response, body}.
  async _request(name, { method = 'GET', range } = {}) {
    const url = this.url(name);
    if (this.signal?.aborted) throw new BpcellsError(`${name}: aborted before the request (${url})`, { file: name, cause: this.signal.reason });
    const controller = new AbortController();
    const state = { timedOut: false };
    const timer = setTimeout(() => {
      state.timedOut = true;
      controller.abort();
    }, this.timeout);
    const onAbort = () => controller.abort();
    this.signal?.addEventListener('abort', onAbort, { once: true });
    const headers = { ...this.headers };
    if (range) headers.Range = `bytes=${range[0]}-${range[1] - 1}`;
    // Compressed answers would break byte ranges; browsers ignore this header (they set it themselves).
    headers['Accept-Encoding'] = 'identity';
    const fail = (err) => {
      if (err instanceof BpcellsError) return err;
      if (state.timedOut) return new BpcellsError(`${name}: HTTP request timed out after ${this.timeout} ms (${url})`, { file: name, cause: err });
      if (this.signal?.aborted) return new BpcellsError(`${name}: HTTP request aborted (${url})`, { file: name, cause: err });
      return new BpcellsError(`${name}: HTTP request failed: ${err?.message ?? err} (${url})`, { file: name, cause: err });
    };
    try {
      let response;
      try {
        response = await this._fetch(url, { method, headers, signal: controller.signal });
      } catch (err) {
        throw fail(err);
      }
      this.stats.requests += 1;
      const f = (this.stats.files[name] ??= { requests: 0, bytes: 0 });
      f.requests += 1;
      if (response.status === 404) {
        await response.body?.cancel?.().catch(() => {});
        throw new BpcellsError(`${name}: file missing (HTTP 404 Not Found at ${url})`, { file: name });
      }
      if (response.status === 416) {
        await response.body?.cancel?.().catch(() => {});
        const total = /\/\s*(\d+)\s*$/.exec(response.headers.get('content-range') ?? '');
        throw new BpcellsError(
          `${name}: bytes [${range?.[0]}, ${range?.[1]}) requested but the file ${total ? `has only ${total[1]} bytes` : 'is shorter'} (HTTP 416, truncated?)`,
          { file: name },
        );
      }
      if (!response.ok) {
        await response.body?.cancel?.().catch(() => {});
        throw new BpcellsError(`${name}: HTTP ${response.status} ${response.statusText} (${url})`, { file: name });
      }
      if (method === 'HEAD') return { response, body: null };
      const body = await this._readBody(name, url, response, fail, state);
      return { response, body };
    } finally {
      clearTimeout(timer);
      this.signal?.removeEventListener('abort', onAbort);
    }
  }

  // Reads the body while enforcing maxBytes; checks it against Content-Length.
  async _readBody(name, url, response, fail, state) {
    const declared = response.headers.get('content-length');
    const expected = declared === null ? null : Number(declared);
    const f = this.stats.files[name];
    const limitError = () =>
      new BpcellsError(
        `${name}: download limit reached: ${this.stats.bytes} bytes fetched so far, ${expected ?? 'more'} more would exceed maxBytes=${this.maxBytes} (${url})`,
        { file: name },
      );
    if (expected !== null && this.stats.bytes + expected > this.maxBytes) {
      await response.body?.cancel?.().catch(() => {});
      throw limitError();
    }
    const parts = [];
    let got = 0;
    try {
      if (response.body && typeof response.body.getReader === 'function') {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          got += value.length;
          this.stats.bytes += value.length;
          f.bytes += value.length;
          if (this.stats.bytes > this.maxBytes) {
            await reader.cancel().catch(() => {});
            throw limitError();
          }
          parts.push(value);
        }
      } else {
        const buf = new Uint8Array(await response.arrayBuffer());
        got = buf.length;
        this.stats.bytes += got;
        f.bytes += got;
        if (this.stats.bytes > this.maxBytes) throw limitError();
        parts.push(buf);
      }
    } catch (err) {
      if (err instanceof BpcellsError) throw err;
      // A connection that drops mid-body is a truncated answer, whatever the fetch layer calls it.
      if (expected !== null && got < expected && !state.timedOut && !this.signal?.aborted) {
        throw new BpcellsError(`${name}: truncated HTTP body: got ${got} of ${expected} bytes (Content-Length) from ${url}`, {
          file: name,
          cause: err,
        });
      }
      throw fail(err);
    }
    // A compressed answer (whole files only: ranges are never compressed) is decoded by fetch, so
    // its Content-Length counts other bytes; only an identity body can be checked against it.
    const encoding = (response.headers.get('content-encoding') ?? 'identity').toLowerCase();
    const checkable = response.status === 206 || encoding === 'identity';
    if (expected !== null && checkable && got < expected) {
      throw new BpcellsError(`${name}: truncated HTTP body: got ${got} of ${expected} bytes (Content-Length) from ${url}`, { file: name });
    }
    if (expected !== null && response.status === 206 && got !== expected) {
      throw new BpcellsError(`${name}: HTTP body of ${got} bytes but Content-Length says ${expected} (${url})`, { file: name });
    }
    if (parts.length === 1) return parts[0];
    const out = new Uint8Array(got);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  async size(name) {
    if (this._sizes.has(name)) return this._sizes.get(name);
    let len = null;
    try {
      const { response } = await this._request(name, { method: 'HEAD' });
      const encoding = (response.headers.get('content-encoding') ?? 'identity').toLowerCase();
      if (encoding === 'identity') len = response.headers.get('content-length');
    } catch (err) {
      // A missing file stays an error; a server that refuses HEAD gets a GET instead.
      if (!(err instanceof BpcellsError) || /file missing|timed out|aborted|download limit/.test(err.message)) throw err;
    }
    if (len !== null && /^\d+$/.test(len)) {
      this._sizes.set(name, Number(len));
      return Number(len);
    }
    // No usable length from HEAD: download the file (once) and count.
    const whole = this.readAll(name);
    this._whole.set(name, whole);
    whole.catch(() => this._whole.delete(name));
    return (await whole).length;
  }

  async readAll(name) {
    if (this._whole.has(name)) return this._whole.get(name);
    const { body } = await this._request(name);
    this._sizes.set(name, body.length);
    return body;
  }

  async read(name, start, end) {
    checkRange(name, start, end);
    if (!this._whole.has(name) && this.rangeSupported === false) {
      // Known to ignore Range: fetch each file once, whole; concurrent readers share the request.
      const p = this._request(name).then(({ body }) => {
        this._sizes.set(name, body.length);
        return body;
      });
      this._whole.set(name, p);
      p.catch(() => this._whole.delete(name));
    }
    if (this._whole.has(name)) return this._slice(name, await this._whole.get(name), start, end);
    if (end === start) {
      const size = await this.size(name);
      if (end > size) throw truncated(name, start, end, size);
      return new Uint8Array(0);
    }
    const { response, body } = await this._request(name, { range: [start, end] });
    if (response.status === 206) {
      this.rangeSupported = true;
      const header = response.headers.get('content-range');
      // Cross-origin, browsers hide Content-Range unless the server lists it in
      // Access-Control-Expose-Headers; then the body length is all there is to check.
      if (header === null) {
        if (body.length !== end - start) {
          throw new BpcellsError(
            `${name}: asked for bytes ${start}-${end - 1} (${end - start} bytes), got ${body.length} (truncated?) from ${this.url(name)}`,
            { file: name },
          );
        }
        return body;
      }
      const cr = /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(header);
      if (!cr) {
        throw new BpcellsError(
          `${name}: HTTP 206 without a valid Content-Range header (got ${JSON.stringify(response.headers.get('content-range'))}) from ${this.url(name)}`,
          { file: name },
        );
      }
      const [a, b] = [Number(cr[1]), Number(cr[2])];
      if (cr[3] !== '*') this._sizes.set(name, Number(cr[3]));
      if (a !== start || b + 1 > end) {
        throw new BpcellsError(`${name}: asked for bytes ${start}-${end - 1}, server sent ${a}-${b} (${this.url(name)})`, { file: name });
      }
      if (b + 1 < end) throw truncated(name, start, end, b + 1);
      if (body.length !== end - start) {
        throw new BpcellsError(`${name}: truncated HTTP body: got ${body.length} of ${end - start} bytes for range ${start}-${end - 1}`, {
          file: name,
        });
      }
      return body;
    }
    // 200: the server ignored Range and sent the whole file; keep it for later ranges.
    this.rangeSupported = false;
    this._whole.set(name, Promise.resolve(body));
    this._sizes.set(name, body.length);
    return this._slice(name, body, start, end);
  }

  _slice(name, whole, start, end) {
    if (end > whole.length) throw truncated(name, start, end, whole.length);
    return whole.subarray(start, end);
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
  if (source instanceof LocalDirSource || source instanceof HttpSource || source instanceof ObjectSource) return source;
  if (typeof URL !== 'undefined' && source instanceof URL) source = source.href;
  if (typeof source === 'string') {
    if (isUrl(source)) return new HttpSource(source, options);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) && !/^file:/i.test(source)) {
      throw new BpcellsError(`unsupported URL scheme in ${JSON.stringify(source)} (http, https or a local path)`);
    }
    const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';
    if (!isNode) throw new BpcellsError(`local paths need Node; in a browser pass an http(s) URL or a {size, read} object`);
    if (/^file:/i.test(source)) source = decodeURIComponent(new URL(source).pathname);
    return new LocalDirSource(source);
  }
  if (source && typeof source === 'object') return new ObjectSource(source);
  throw new BpcellsError(`cannot open ${String(source)}: pass a directory path, an http(s) URL or a {size, read} object`);
}
