// HTTP(S) range reading that survives real networks: retries with backoff, timeouts, abort,
// validator pinning (ETag / Last-Modified) so a file replaced mid-read is an error rather than
// mixed bytes, and servers that ignore Range (whole file once, then served from memory).
import { CODES, IoError, truncatedError } from './errors.js';
import { limiterFor } from './limiter.js';
import { backoff, parseRetryAfter, sleep } from './retry.js';
import { countBytes, countRetry, startRequest } from './stats.js';

const EXPOSE = 'Content-Range, Content-Length, ETag, Accept-Ranges';
const MAX_TIMER = 2 ** 31 - 1;
const CORS_HINT = `a cross-origin server must send "Access-Control-Expose-Headers: ${EXPOSE}"`;

/** An error worth another attempt (network, 5xx, 408, 429, a short or mismatched answer). */
function retryable(err, retryAfterMs = null) {
  err.retryable = true;
  err.retryAfterMs = retryAfterMs;
  return err;
}

function statusText(response) {
  return `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
}

async function discard(response) {
  try {
    await response.body?.cancel?.();
  } catch {
    // nothing to release
  }
}

function isBrowserCrossOrigin(url) {
  const here = globalThis.location?.origin;
  return typeof here === 'string' && here !== 'null' && new URL(url).origin !== here;
}

/** The validators of an identity-encoded answer (a compressed variant has its own ETag). */
function validatorsOf(response) {
  const encoding = (response.headers.get('content-encoding') ?? 'identity').toLowerCase();
  if (encoding !== 'identity') return null;
  const etag = response.headers.get('etag');
  const lastModified = response.headers.get('last-modified');
  return etag || lastModified ? { etag, lastModified } : null;
}

function describe(v) {
  return v.etag ? `ETag ${v.etag}` : `Last-Modified ${v.lastModified}`;
}

export class HttpBackend {
  /**
   * ctx: { stats, statsKey, name, shared } — shared is per directory ({ rangeSupported }: what
   * the last ranged answer said, for HttpSource.rangeSupported).
   */
  constructor(url, opts, { stats, statsKey, name, shared }) {
    this.url = url;
    this.name = name ?? url;
    this.kind = 'http';
    this.opts = opts;
    this.stats = stats;
    this.statsKey = statsKey ?? this.name;
    this.shared = shared ?? { rangeSupported: undefined };
    this.limiter = limiterFor(new URL(url).origin, opts.concurrency);
    // Called as a plain function: browsers refuse fetch() invoked as a method of another object.
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    if (typeof this.fetchFn !== 'function' || (!opts.fetch && typeof globalThis.fetch !== 'function')) {
      throw new TypeError('no fetch() available; pass options.fetch');
    }
    this.crossOrigin = isBrowserCrossOrigin(url);
    // If-Range is not a CORS-safelisted header: cross-origin it would cost a preflight per request
    // (and fail on servers that do not allow it), so there validators are compared on answers only.
    this.ifRange = opts.ifRange ?? !this.crossOrigin;
    this._size = null;
    this.pinned = null; // validators of the first answer: every later answer must match them
    this.whole = null; // Promise<Uint8Array> once the server is known to ignore Range
    this._wholeSignal = null; // the signal of readAll()'s download under way
  }

  sizeSync() {
    return this._size;
  }

  peek(start, end) {
    return this._wholeBytes && end <= this._wholeBytes.length ? this._wholeBytes.subarray(start, end) : null;
  }

  // Messages name the URL; a file called otherwise (options.name, a directory's file) is named first.
  _err(message, details = {}) {
    return new IoError(this.name === this.url ? message : `${this.name}: ${message}`, { file: this.name, ...details });
  }

  // Pins the first validators seen; a later answer with different ones means the file changed.
  _checkValidators(response) {
    const v = validatorsOf(response);
    if (!v) return;
    if (!this.pinned) {
      this.pinned = v;
      return;
    }
    const p = this.pinned;
    const changed = p.etag && v.etag ? p.etag !== v.etag : p.lastModified && v.lastModified ? p.lastModified !== v.lastModified : false;
    if (changed) {
      throw this._err(
        `file changed on the server while reading (${describe(p)} at first, now ${describe(v)}); bytes of two versions are never mixed, open it again (${this.url})`,
        { code: CODES.CHANGED, status: response.status },
      );
    }
  }

  _conditionalHeaders() {
    if (!this.ifRange || !this.pinned) return {};
    const { etag, lastModified } = this.pinned;
    if (etag && !etag.startsWith('W/')) return { 'If-Range': etag }; // If-Range needs a strong validator
    if (lastModified) return { 'If-Range': lastModified };
    return {};
  }

  // Retries `once` on retryable errors with capped exponential backoff (or Retry-After).
  async _withRetries(once, signal) {
    const { retries } = this.opts;
    for (let attempt = 0; ; attempt++) {
      try {
        return await once();
      } catch (err) {
        if (!err?.retryable || attempt >= retries) {
          if (err?.retryable && retries > 0) err.message += ` [gave up after ${attempt + 1} attempts]`;
          if (err) {
            delete err.retryable;
            delete err.retryAfterMs;
          }
          throw err;
        }
        countRetry(this.stats);
        try {
          await sleep(backoff(attempt + 1, this.opts, err.retryAfterMs), [this.opts.signal, signal], 'retry wait');
        } catch (abort) {
          throw this._err(`HTTP request aborted while waiting to retry (${this.url})`, { code: CODES.ABORTED, cause: abort.cause });
        }
      }
    }
  }

  /**
   * One request: { response, body } (body null for HEAD). Throws IoError, marked retryable
   * when another attempt may succeed. `range` is [start, end), a number n for the last n bytes,
   * or null for the whole file.
   */
  async _once(method, range, signal, accept) {
    const signals = [this.opts.signal, signal].filter(Boolean);
    for (const s of signals) {
      if (s.aborted) throw this._err(`aborted before the request (${this.url})`, { code: CODES.ABORTED, cause: s.reason });
    }
    const controller = new AbortController();
    const state = { timedOut: false, aborted: false };
    const onAbort = () => {
      state.aborted = true;
      controller.abort();
    };
    for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
    let release = null;
    let timer = null;
    let finished = null;
    try {
      try {
        release = await this.limiter.acquire(controller.signal);
      } catch {
        throw this._err(`HTTP request aborted (${this.url})`, { code: CODES.ABORTED });
      }
      // The timeout is a silence: until the answer's headers, then between pieces of its body, so
      // that a large body on a slow link is not cut while it still arrives (a stall still is).
      // setTimeout cannot wait longer than 2^31-1 ms (a bigger delay fires at once): no timer then.
      state.arm = () => {
        if (this.opts.timeout > MAX_TIMER) return;
        clearTimeout(timer);
        timer = setTimeout(() => {
          state.timedOut = true;
          controller.abort();
        }, this.opts.timeout);
      };
      state.arm();
      const headers = { ...(this.opts.headers ?? {}) };
      if (range) {
        // A number n asks for the file's last n bytes (a suffix range: its answer also gives the size).
        headers.Range = typeof range === 'number' ? `bytes=-${range}` : `bytes=${range[0]}-${range[1] - 1}`;
        Object.assign(headers, this._conditionalHeaders());
      }
      // Compressed answers would break byte ranges; browsers ignore this header (they set it themselves).
      headers['Accept-Encoding'] = 'identity';
      const fail = (err) => {
        if (err instanceof IoError) return err;
        if (state.aborted) return this._err(`HTTP request aborted (${this.url})`, { code: CODES.ABORTED, cause: err });
        if (state.timedOut) return retryable(this._err(`HTTP request timed out after ${this.opts.timeout} ms (${this.url})`, { cause: err }));
        // Browsers report a CORS refusal as a bare TypeError ("Failed to fetch"): say what it may be.
        const hint = this.crossOrigin && err?.name === 'TypeError' ? ` (cross-origin: the server must send Access-Control-Allow-Origin, and ${CORS_HINT})` : '';
        return retryable(this._err(`HTTP request failed: ${err?.message ?? err}${hint} (${this.url})`, { cause: err }));
      };
      let response;
      // Counted when sent: a request that never got an answer (reset, timeout) still cost one.
      finished = startRequest(this.stats, this.statsKey);
      try {
        response = await this.fetchFn(this.url, { method, headers, signal: controller.signal });
      } catch (err) {
        throw fail(err);
      }
      const status = response.status;
      if (status === 404 || status === 410) {
        await discard(response);
        throw this._err(`file missing (HTTP ${statusText(response)} at ${this.url})`, { code: CODES.NOT_FOUND, status });
      }
      if (status === 416) {
        await discard(response);
        const total = /\/\s*(\d+)\s*$/.exec(response.headers.get('content-range') ?? '');
        if (total) this._size = Number(total[1]);
        if (accept?.onRangeNotSatisfiable) return accept.onRangeNotSatisfiable(total ? Number(total[1]) : null);
        throw this._err(
          `needs bytes [${range?.[0]}, ${range?.[1]}) but the file ${total ? `has only ${total[1]} bytes` : 'is shorter'} (HTTP 416, truncated?) (${this.url})`,
          { status },
        );
      }
      if (status === 412) {
        await discard(response);
        throw this._err(`file changed on the server while reading (HTTP 412 Precondition Failed) (${this.url})`, { code: CODES.CHANGED, status });
      }
      if (status >= 500 || status === 408 || status === 429) {
        await discard(response);
        const after = parseRetryAfter(response.headers.get('retry-after'));
        throw retryable(this._err(`HTTP ${statusText(response)} (${this.url})`, { status }), after);
      }
      if (status < 200 || status > 299) {
        await discard(response);
        if (accept?.onOtherStatus) return accept.onOtherStatus(status);
        throw this._err(`HTTP ${statusText(response)} (${this.url})`, { status });
      }
      try {
        this._checkValidators(response);
      } catch (err) {
        await discard(response);
        throw err;
      }
      if (method === 'HEAD') return { response, body: null };
      const body = await this._readBody(response, fail, state);
      return { response, body };
    } finally {
      finished?.(); // the answer, body included, is in (or never will be)
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener('abort', onAbort);
      release?.();
    }
  }

  // Reads the body while enforcing maxReadBytes; a body shorter than Content-Length is retryable.
  async _readBody(response, fail, state) {
    const declared = response.headers.get('content-length');
    const expected = declared === null || !/^\d+$/.test(declared) ? null : Number(declared);
    const { maxReadBytes } = this.opts;
    const limitError = () =>
      this._err(
        `download limit reached: ${this.stats.bytes} bytes fetched so far, ${expected ?? 'more'} more would exceed maxReadBytes=${maxReadBytes} (${this.url})`,
      );
    if (expected !== null && this.stats.bytes + expected > maxReadBytes) {
      await discard(response);
      throw limitError();
    }
    const truncated = (got, cause) =>
      retryable(this._err(`truncated HTTP body: got ${got} of ${expected} bytes (Content-Length) from ${this.url}`, { cause }));
    const parts = [];
    let got = 0;
    try {
      if (response.body && typeof response.body.getReader === 'function') {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          state.arm(); // bytes arrived: the silence starts again
          got += value.length;
          countBytes(this.stats, this.statsKey, value.length);
          if (this.stats.bytes > maxReadBytes) {
            await reader.cancel().catch(() => {});
            throw limitError();
          }
          parts.push(value);
        }
      } else {
        const buf = new Uint8Array(await response.arrayBuffer());
        got = buf.length;
        countBytes(this.stats, this.statsKey, got);
        if (this.stats.bytes > maxReadBytes) throw limitError();
        parts.push(buf);
      }
    } catch (err) {
      if (err instanceof IoError) throw err;
      // A connection that drops mid-body is a truncated answer, whatever the fetch layer calls it.
      if (expected !== null && got < expected && !state.timedOut && !state.aborted) throw truncated(got, err);
      throw fail(err);
    }
    // A compressed answer is decoded by fetch, so its Content-Length counts other bytes; only an
    // identity body can be checked against it.
    const encoding = (response.headers.get('content-encoding') ?? 'identity').toLowerCase();
    if (expected !== null && encoding === 'identity' && got !== expected) {
      if (got < expected) throw truncated(got);
      throw retryable(this._err(`HTTP body of ${got} bytes but Content-Length says ${expected} (${this.url})`));
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

  _keepWhole(body) {
    this._wholeBytes = body;
    this._size = body.length;
    return body;
  }

  /** The whole file in one GET without Range (shared by concurrent callers). */
  readAll(signal) {
    if (this._wholeBytes) return Promise.resolve(this._wholeBytes);
    // A download under way is shared, unless its caller has aborted it (it is about to fail).
    if (this.whole && !this._wholeSignal?.aborted) return this.whole;
    this._wholeSignal = signal;
    const p = this._withRetries(async () => {
      const { body } = await this._once('GET', null, signal);
      return this._keepWhole(body);
    }, signal);
    this.whole = p;
    p.catch(() => {
      if (this.whole === p) this.whole = null;
    });
    return p;
  }

  async size(signal) {
    if (this._size !== null) return this._size;
    const head = await this._withRetries(
      () => this._once('HEAD', null, signal, { onOtherStatus: (status) => ({ refused: status }) }),
      signal,
    );
    if (!head.refused) {
      const encoding = (head.response.headers.get('content-encoding') ?? 'identity').toLowerCase();
      const len = head.response.headers.get('content-length');
      if (encoding === 'identity' && len !== null && /^\d+$/.test(len)) {
        this._size = Number(len);
        return this._size;
      }
    }
    // HEAD refused or without a usable length: ask for the first byte; Content-Range has the total.
    await this.fetch(0, 1, signal, { probe: true });
    if (this._size === null) {
      throw this._err(`cannot learn the file size: neither HEAD nor a range answer gave it (Content-Range hidden? ${CORS_HINT}) (${this.url})`);
    }
    return this._size;
  }

  /** Exactly bytes [start, end) (retried as needed), or an IoError. */
  async fetch(start, end, signal, { probe = false } = {}) {
    // Range-ignoring answers are learnt per file: a CDN may ignore Range for one file (or once)
    // and honour it elsewhere, so one 200 must not turn every other file into a whole download.
    if (this._wholeBytes) return this._slice(this._wholeBytes, start, end);
    if (this.whole) {
      try {
        return this._slice(await this.whole, start, end);
      } catch (err) {
        // A whole download started by readAll() is cancelled when its own callers all abort (and
        // let go of by readAll()'s own catch); a range that waited on it, not aborted itself, asks
        // for its bytes instead.
        if (err?.code !== CODES.ABORTED || signal?.aborted || this.opts.signal?.aborted) throw err;
      }
    }
    if (end === start) {
      const size = await this.size(signal);
      if (end > size) throw truncatedError(this.name, start, end, size);
      return new Uint8Array(0);
    }
    const result = await this._withRetries(async () => {
      const answer = await this._once('GET', [start, end], signal, {
        // An empty file answers a probe of byte 0 with 416 */0.
        onRangeNotSatisfiable: (total) => {
          if (probe && total === 0) return { empty: true };
          throw this._err(
            `needs bytes [${start}, ${end}) but the file ${total !== null ? `has only ${total} bytes` : 'is shorter'} (HTTP 416, truncated?) (${this.url})`,
            { status: 416 },
          );
        },
      });
      if (answer.empty) return answer;
      const { response, body } = answer;
      if (response.status === 206) return { body: this._checkPartial(response, body, start, end, probe) };
      return { whole: body };
    }, signal);
    if (result.empty) {
      this._size = 0;
      return new Uint8Array(0);
    }
    if (result.whole) {
      // 200: the server ignored Range and sent the whole file; keep it for later ranges.
      this.shared.rangeSupported = false;
      this._keepWhole(result.whole);
      this.whole = Promise.resolve(result.whole);
      return probe ? result.whole.subarray(0, Math.min(end, result.whole.length)) : this._slice(result.whole, start, end);
    }
    this.shared.rangeSupported = true;
    return result.body;
  }

  // A 206 answer must be exactly the bytes asked for, as far as its headers let us check.
  _checkPartial(response, body, start, end, probe) {
    const header = response.headers.get('content-range');
    const cors = response.type === 'cors';
    if (header === null) {
      // Cross-origin, browsers hide Content-Range unless the server exposes it; then the body
      // length is all there is to check.
      if (body.length === end - start) return body;
      const why = cors ? `Content-Range is hidden by CORS: ${CORS_HINT}` : 'and no Content-Range header';
      const err = this._err(`asked for bytes ${start}-${end - 1} (${end - start} bytes), got ${body.length} ${why} (${this.url})`);
      err.sizeHidden = true; // a probe may learn the size another way (js/io/head.js)
      throw retryable(err);
    }
    const cr = /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(header);
    if (!cr) throw retryable(this._err(`HTTP 206 without a valid Content-Range header (got ${JSON.stringify(header)}) from ${this.url}`));
    const [a, b] = [Number(cr[1]), Number(cr[2])];
    const total = cr[3] === '*' ? null : Number(cr[3]);
    if (a !== start || b + 1 > end || (b + 1 < end && !(total !== null && b + 1 === total))) {
      throw retryable(this._err(`asked for bytes ${start}-${end - 1}, server sent ${a}-${b} (${this.url})`));
    }
    if (body.length !== b + 1 - a) {
      throw retryable(this._err(`truncated HTTP body: got ${body.length} of ${b + 1 - a} bytes for range ${a}-${b} from ${this.url}`));
    }
    if (total !== null) this._size = total;
    if (b + 1 < end && !probe) throw truncatedError(this.name, start, end, total);
    return body;
  }

  _slice(whole, start, end) {
    if (end > whole.length) throw truncatedError(this.name, start, end, whole.length);
    return whole.subarray(start, end);
  }

  close() {
    this._wholeBytes = null;
    this.whole = null;
  }
}
