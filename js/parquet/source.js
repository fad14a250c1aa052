// Where a Parquet file's bytes come from. This is a small local stand-in with the shape of the
// shared range-reading layer (js/io, issue 13):
//   const f = openFile(input, options); f.name; f.kind; f.stats; await f.size();
//   await f.read(start, end); await f.readRanges([[s, e], ...]); f.close();
// input: a local path (Node), an http(s) URL string or URL, a Blob/File, an ArrayBuffer or view,
// a {size(), read(start, end)} object or a hyparquet AsyncBuffer {byteLength, slice(start, end)}.
// HTTP options: {timeout, signal, headers, fetch, maxBytes}. Every failure is an IoError naming
// the file or URL; `stats` counts requests and bytes actually read.
import { IoError, abortError } from '../errors.js';

const DEFAULT_TIMEOUT_MS = 60000;

function newStats() {
  return { requests: 0, bytes: 0, retries: 0, files: 1 };
}

function toU8(x, name) {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  throw new IoError(`${name}: the source returned ${Object.prototype.toString.call(x)}, expected bytes`, { file: name });
}

function isUrlString(s) {
  return typeof s === 'string' && /^https?:\/\//i.test(s);
}

/** A source over bytes the caller already holds. */
function memoryFile(bytes, name) {
  const stats = newStats();
  return {
    name,
    kind: 'memory',
    stats,
    async size() {
      return bytes.length;
    },
    peek(start, end) {
      return bytes.subarray(start, end);
    },
    async read(start, end) {
      stats.requests += 1;
      stats.bytes += end - start;
      return bytes.subarray(start, end);
    },
    close() {},
  };
}

/** A local file (Node): one open handle, positional reads. */
function localFile(path, name) {
  const stats = newStats();
  let handle = null;
  let sizePromise = null;
  const open = async () => {
    if (handle) return handle;
    const fs = await import('node:fs/promises');
    try {
      handle = await fs.open(path, 'r');
    } catch (err) {
      throw new IoError(`${name}: cannot open (${err.code ?? err.message})`, { file: name, cause: err });
    }
    return handle;
  };
  return {
    name,
    kind: 'local',
    stats,
    size() {
      sizePromise ??= open().then(async (h) => Number((await h.stat()).size));
      return sizePromise;
    },
    async read(start, end) {
      const h = await open();
      const out = new Uint8Array(end - start);
      let got = 0;
      while (got < out.length) {
        const { bytesRead } = await h.read(out, got, out.length - got, start + got);
        if (bytesRead === 0) {
          throw new IoError(`${name}: needs bytes [${start}, ${end}) but the file ends at ${start + got} (truncated?)`, { file: name });
        }
        got += bytesRead;
      }
      stats.requests += 1;
      stats.bytes += out.length;
      return out;
    },
    close() {
      handle?.close().catch(() => {});
      handle = null;
    },
  };
}

/** A Blob or File: slices are read on demand. */
function blobFile(blob, name) {
  const stats = newStats();
  return {
    name,
    kind: 'blob',
    stats,
    async size() {
      return blob.size;
    },
    async read(start, end) {
      let buf;
      try {
        buf = await blob.slice(start, end).arrayBuffer();
      } catch (err) {
        throw new IoError(`${name}: reading bytes [${start}, ${end}) failed: ${err?.message ?? err}`, { file: name, cause: err });
      }
      stats.requests += 1;
      stats.bytes += buf.byteLength;
      return new Uint8Array(buf);
    },
    close() {},
  };
}

/** A user object: {size(), read(start, end)} or a hyparquet AsyncBuffer {byteLength, slice(start, end)}. */
function objectFile(obj, name) {
  const stats = newStats();
  const isAsyncBuffer = typeof obj.slice === 'function' && obj.byteLength !== undefined;
  return {
    name,
    kind: 'object',
    stats,
    async size() {
      return Number(isAsyncBuffer ? obj.byteLength : await obj.size());
    },
    async read(start, end) {
      let got;
      try {
        got = toU8(await (isAsyncBuffer ? obj.slice(start, end) : obj.read(start, end)), name);
      } catch (err) {
        if (err instanceof IoError) throw err;
        throw new IoError(`${name}: reading bytes [${start}, ${end}) failed: ${err?.message ?? err}`, { file: name, cause: err });
      }
      if (got.length !== end - start) {
        throw new IoError(`${name}: asked for bytes [${start}, ${end}) and got ${got.length} bytes`, { file: name });
      }
      stats.requests += 1;
      stats.bytes += got.length;
      return got;
    },
    close() {},
  };
}

/** An http(s) URL read with Range requests. */
function httpFile(url, options) {
  const name = url;
  const stats = newStats();
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? Infinity;
  const signal = options.signal;
  const headers = options.headers ?? {};
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  if (!(timeout > 0)) throw new RangeError(`parquet: options.timeout must be a positive number of ms, got ${timeout}`);
  if (!(maxBytes > 0)) throw new RangeError(`parquet: options.maxBytes must be a positive number, got ${maxBytes}`);
  let sizePromise = null;
  let whole = null; // the body when the server ignored Range

  async function request(range) {
    if (signal?.aborted) throw abortError(signal, `reading ${url}`);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const h = { ...headers, 'Accept-Encoding': 'identity', Range: `bytes=${range[0]}-${range[1] - 1}` };
    try {
      let response;
      try {
        response = await doFetch(url, { headers: h, signal: controller.signal });
      } catch (err) {
        if (signal?.aborted) throw abortError(signal, `reading ${url}`);
        if (timedOut) throw new IoError(`${url}: HTTP request timed out after ${timeout} ms`, { file: name, cause: err });
        throw new IoError(`${url}: HTTP request failed: ${err?.message ?? err}`, { file: name, cause: err });
      }
      stats.requests += 1;
      if (!response.ok) {
        await response.body?.cancel?.().catch(() => {});
        throw new IoError(`${url}: HTTP ${response.status} ${response.statusText}`.trim(), { file: name, status: response.status });
      }
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (stats.bytes + (Number.isFinite(declared) ? declared : 0) > maxBytes) {
        await response.body?.cancel?.().catch(() => {});
        throw new IoError(`${url}: download limit reached: ${stats.bytes} bytes read, ${declared} more would exceed maxBytes=${maxBytes}`, { file: name });
      }
      let body;
      try {
        body = new Uint8Array(await response.arrayBuffer());
      } catch (err) {
        if (signal?.aborted) throw abortError(signal, `reading ${url}`);
        if (timedOut) throw new IoError(`${url}: HTTP request timed out after ${timeout} ms`, { file: name, cause: err });
        throw new IoError(`${url}: reading the HTTP body failed: ${err?.message ?? err}`, { file: name, cause: err });
      }
      stats.bytes += body.length;
      if (stats.bytes > maxBytes) {
        throw new IoError(`${url}: download limit reached: ${stats.bytes} bytes read exceeds maxBytes=${maxBytes}`, { file: name });
      }
      return { response, body };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  const file = {
    name,
    kind: 'http',
    stats,
    size() {
      sizePromise ??= (async () => {
        const { response, body } = await request([0, 1]);
        if (response.status === 206) {
          const m = /\/\s*(\d+)\s*$/.exec(response.headers.get('content-range') ?? '');
          if (!m) throw new IoError(`${url}: a 206 answer without a Content-Range total`, { file: name });
          return Number(m[1]);
        }
        whole = body; // the server sent everything
        return body.length;
      })();
      sizePromise.catch(() => {
        sizePromise = null;
      });
      return sizePromise;
    },
    async read(start, end) {
      const size = await file.size();
      if (end > size) throw new IoError(`${url}: needs bytes [${start}, ${end}) but the file has ${size} (truncated?)`, { file: name });
      if (start === end) return new Uint8Array(0);
      if (whole) return whole.subarray(start, end);
      const { response, body } = await request([start, end]);
      if (response.status === 200 && body.length === size) {
        whole = body;
        return body.subarray(start, end);
      }
      if (body.length !== end - start) {
        throw new IoError(`${url}: asked for bytes [${start}, ${end}) and got ${body.length} bytes`, { file: name });
      }
      return body;
    },
    close() {},
  };
  return file;
}

/** Opens any supported input; see the header comment. */
export function openFile(input, options = {}) {
  options = options ?? {};
  let file;
  if (input instanceof URL) file = httpFile(input.href, options);
  else if (isUrlString(input)) file = httpFile(input, options);
  else if (typeof input === 'string') {
    if (typeof process === 'undefined' || !process.versions?.node) {
      throw new TypeError(`parquet: a path (${input}) needs Node; pass a URL, Blob or bytes in browsers`);
    }
    file = localFile(input, options.name ?? input);
  } else if (input instanceof ArrayBuffer) file = memoryFile(new Uint8Array(input), options.name ?? 'buffer');
  else if (ArrayBuffer.isView(input)) file = memoryFile(toU8(input), options.name ?? 'buffer');
  else if (typeof Blob === 'function' && input instanceof Blob) file = blobFile(input, options.name ?? input.name ?? 'blob');
  else if (input && typeof input === 'object' && (typeof input.read === 'function' || typeof input.slice === 'function')) {
    file = objectFile(input, options.name ?? 'source');
  } else {
    throw new TypeError('parquet: file must be a path, an http(s) URL, a URL, bytes, a Blob or an AsyncBuffer');
  }
  file.readRanges ??= (ranges) => Promise.all(ranges.map(([s, e]) => file.read(s, e)));
  return file;
}
