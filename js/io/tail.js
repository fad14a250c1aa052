// readTail: a file's last n bytes and its size from one request. Over HTTP that is one suffix
// range (`Range: bytes=-n`): the answer's Content-Range gives the size, so a reader whose metadata
// sits at the end of the file (Parquet's footer) needs no HEAD or first-byte probe before it.
// Cross-origin in a browser it is not sent by default: the Fetch standard safelists only ranges
// with a start (`bytes=a-` or `bytes=a-b`), so a suffix range would cost a CORS preflight (and
// fail where the server does not allow Range); there the size comes from a HEAD first, unless
// options.suffixRange says the server allows it. Other sources know their size already.
import { IoError } from './errors.js';

// http.js's convention: an error another attempt may cure carries `retryable`.
function retryable(err) {
  err.retryable = true;
  err.retryAfterMs = null;
  return err;
}

// The last n bytes over HTTP: {size, bytes} (size null when the answer did not tell it), or null
// when the server refused the suffix range.
// Uses the backend's retries, validators, limits and stats (this file extends HttpBackend).
async function httpTail(backend, n, signal) {
  const result = await backend._withRetries(async () => {
    const answer = await backend._once('GET', n, signal, {
      // 416 to a suffix range: the file is empty (`bytes */0`), or the server refuses suffixes.
      onRangeNotSatisfiable: (total) => ({ unsatisfiable: true, total }),
    });
    if (answer.unsatisfiable) return answer;
    const { response, body } = answer;
    if (response.status !== 206) return { whole: body };
    return { body, size: suffixSize(backend, response, body, n) };
  }, signal);
  if (result.unsatisfiable) return result.total === 0 ? { size: 0, bytes: new Uint8Array(0) } : null;
  if (result.whole) {
    // 200: the server ignored Range and sent the whole file; kept for later ranges, as fetch() does.
    backend.shared.rangeSupported = false;
    backend._keepWhole(result.whole);
    backend.whole = Promise.resolve(result.whole);
    const size = result.whole.length;
    return { size, bytes: result.whole.subarray(Math.max(0, size - n)) };
  }
  backend.shared.rangeSupported = true;
  if (result.size !== null) backend._size = result.size;
  return { size: result.size, bytes: result.body };
}

// The file size a 206 answer to `bytes=-n` tells, after checking it is the file's tail; null when
// Content-Range is hidden (cross-origin without Access-Control-Expose-Headers) and the body
// alone cannot tell (a body shorter than n is the whole file).
function suffixSize(backend, response, body, n) {
  const header = response.headers.get('content-range');
  if (header === null) return body.length < n ? body.length : null;
  const cr = /^\s*bytes\s+(\d+)-(\d+)\/(\d+)\s*$/i.exec(header);
  const [a, b, total] = cr ? [Number(cr[1]), Number(cr[2]), Number(cr[3])] : [];
  if (!cr || b + 1 !== total || (b + 1 - a !== n && a !== 0) || body.length !== b + 1 - a) {
    throw retryable(
      new IoError(`asked for the last ${n} bytes, got ${body.length} bytes with Content-Range ${JSON.stringify(header)} (${backend.url})`, {
        file: backend.name,
      }),
    );
  }
  return total;
}

/**
 * The last n bytes of `file` (a RangeFile; all of it when shorter) and its size:
 * {size, start, bytes} with bytes = [start, size). One request over HTTP; the bytes are cached,
 * so later reads inside them cost nothing.
 * @param {import('./range-file.js').RangeFile} file
 * @param {number} n
 * @param {{signal?: AbortSignal}} [opts]
 */
export async function readTail(file, n, opts = {}) {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`readTail: n must be a positive integer, got ${n}`);
  const backend = file._backend;
  const suffix = backend.kind === 'http' && (backend.opts.suffixRange ?? !backend.crossOrigin);
  if (suffix && backend.sizeSync() === null && !backend.whole) {
    const tail = await httpTail(backend, n, opts.signal);
    if (tail !== null) {
      tail.size ??= await file.size(opts); // Content-Range hidden: a HEAD tells the size
      const start = tail.size - tail.bytes.length;
      file._ctx.cache.put(file._cacheKey(), start, tail.bytes);
      return { size: tail.size, start, bytes: tail.bytes };
    }
  }
  const size = await file.size(opts);
  const start = Math.max(0, size - n);
  return { size, start, bytes: await file.read(start, size, opts) };
}
