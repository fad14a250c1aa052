// js/io, behaviour by behaviour: every source kind, retries (5xx, 408, 429 with Retry-After, not
// other 4xx), short bodies, timeouts, abort, validator pinning (ERR_CHANGED, never mixed bytes),
// servers that ignore Range, merging, the concurrency cap, in-flight sharing, the LRU bound and
// the CORS message. Servers listen on 127.0.0.1; backoff is kept to a few ms.
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IoError, openDirectory, openFile } from '../../../js/io/index.js';
import { RangeCache } from '../../../js/io/cache.js';
import { backoff, parseRetryAfter } from '../../../js/io/retry.js';
import { pattern, serveRange, startServer } from '../helpers/io-test-server.js';
import { rejection } from '../helpers/rejection.js';

const FAST = { retryDelay: 1, maxRetryDelay: 20 };
const DATA = pattern(10000);
const same = (a, b) => a.length === b.length && Buffer.from(a).equals(Buffer.from(b));

let srv;
let tmp;
beforeAll(async () => {
  srv = await startServer();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'numdecode-io-'));
});
afterAll(async () => {
  await srv.close();
  rmSync(tmp, { recursive: true, force: true });
});

// Polls `cond` every 5 ms for at most 3 s (no fixed sleeps: a loaded machine may be slower).
async function until(cond) {
  for (let i = 0; i < 600 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe('sources', () => {
  test('local file (Node): read, readRanges, peek, readSync, stats, missing file', async () => {
    const file = path.join(tmp, 'data.bin');
    writeFileSync(file, DATA);
    const f = openFile(file);
    expect(f.kind).toBe('local');
    expect(f.name).toBe(file);
    expect(await f.size()).toBe(DATA.length);
    expect(same(await f.read(100, 300), DATA.subarray(100, 300))).toBe(true);
    expect(same(f.readSync(5000, 5010), DATA.subarray(5000, 5010))).toBe(true);
    expect(f.peek(150, 200)).not.toBeNull(); // in the cache since the first read
    expect(f.peek(9000, 9001)).toBeNull();
    expect(f.stats).toEqual({ requests: 2, bytes: 210, retries: 0, roundTrips: 2, files: { [file]: { requests: 2, bytes: 210 } } });
    const err = await rejection(f.read(9990, 10010));
    expect(err).toBeInstanceOf(IoError);
    expect(err.code).toBe('ERR_BAD_DATA'); // the file's own fault, not the medium's
    expect(err.file).toBe(file);
    expect(err.message).toMatch(/needs bytes \[9990, 10010\) but the file has only 10000 bytes \(truncated\?\)/);
    f.close();
    const missing = await rejection(openFile(path.join(tmp, 'nope.bin')).read(0, 1));
    expect(missing).toBeInstanceOf(IoError);
    expect(missing.code).toBe('ERR_NOT_FOUND');
    expect(missing.message).toContain(`file missing (no such file ${path.join(tmp, 'nope.bin')})`);
  });

  test('ArrayBuffer, typed arrays and DataView: synchronous peek and readSync', async () => {
    const ab = DATA.buffer.slice(0);
    for (const input of [ab, new Uint8Array(ab), new DataView(ab, 10), new Uint16Array(ab, 0, 100)]) {
      const f = openFile(input);
      const n = input.byteLength;
      const off = ArrayBuffer.isView(input) ? input.byteOffset : 0;
      expect(f.kind).toBe('buffer');
      expect(await f.size()).toBe(n);
      expect(same(f.peek(3, 50), DATA.subarray(off + 3, off + 50))).toBe(true);
      expect(same(f.readSync(0, 7), DATA.subarray(off, off + 7))).toBe(true);
      expect(same(await f.read(n - 5, n), DATA.subarray(off + n - 5, off + n))).toBe(true);
      expect(f.peek(0, n + 1)).toBeNull();
      await expect(f.read(0, n + 1)).rejects.toThrow(IoError);
    }
  });

  test('Blob / File: async reads, no readSync outside a Worker', async () => {
    const f = openFile(new File([DATA], 'cells.bin'));
    expect(f.kind).toBe('blob');
    expect(f.name).toBe('File cells.bin');
    expect(f.readSync).toBeUndefined();
    expect(await f.size()).toBe(DATA.length);
    const [a, b] = await f.readRanges([[10, 20], [9990, 10000]]);
    expect(same(a, DATA.subarray(10, 20))).toBe(true);
    expect(same(b, DATA.subarray(9990, 10000))).toBe(true);
    const err = await rejection(f.read(9999, 10001));
    expect(err.file).toBe('File cells.bin');
    expect(err.message).toMatch(/File cells\.bin: needs bytes \[9999, 10001\)/);
  });

  test('user objects: {size, read} (sync or async) and a hyparquet AsyncBuffer', async () => {
    const plain = openFile({ size: () => DATA.length, read: async (s, e) => DATA.slice(s, e).buffer }, { name: 'mine' });
    expect(plain.kind).toBe('object');
    expect(same(await plain.read(7, 77), DATA.subarray(7, 77))).toBe(true);
    const ab = openFile({ byteLength: DATA.length, slice: (s, e) => DATA.buffer.slice(s, e) });
    expect(await ab.size()).toBe(DATA.length);
    expect(same(await ab.read(1, 9), DATA.subarray(1, 9))).toBe(true);
    const short = openFile({ size: () => 100, read: (s, e) => DATA.subarray(s, e - 1) }, { name: 'short one' });
    const err = await rejection(short.read(0, 10));
    expect(err).toBeInstanceOf(IoError);
    expect(err.file).toBe('short one');
    expect(err.message).toBe('short one: read(0, 10) returned 9 bytes, expected 10 (truncated?)');
    const missing = await rejection(openFile({ size: () => null, read: () => null }, { name: 'gone' }).size());
    expect(missing.message).toBe('gone: file missing (size() returned null)');
    expect(missing.code).toBe('ERR_NOT_FOUND');
  });

  test('bad calls are TypeError / RangeError, not IoError', () => {
    expect(() => openFile(new Uint8Array(4), { retry: 2 })).toThrow(TypeError);
    expect(() => openFile(new Uint8Array(4), { constructor: 2 })).toThrow(/unknown option "constructor"/); // not an inherited name
    expect(() => openFile(new Uint8Array(4), { retries: -1 })).toThrow(RangeError);
    expect(() => openFile(42)).toThrow(TypeError);
    expect(() => openFile('ftp://example.com/x')).toThrow(/unsupported URL scheme/);
    const f = openFile(new Uint8Array(4));
    expect(() => f.peek(3, 1)).toThrow(RangeError);
    expect(() => f.peek(0.5, 1)).toThrow(TypeError);
  });
});

describe('HTTP retries', () => {
  // Fails the first `n` requests with `fail(res)`, then serves DATA.
  function failFirst(n, fail) {
    let seen = 0;
    return (req, res) => (seen++ < n ? fail(res, req) : serveRange(req, res, DATA));
  }

  test.each([
    [500, {}],
    [503, { 'Retry-After': '1' }],
    [502, {}],
    [408, {}],
    [429, { 'Retry-After': '0' }],
  ])('HTTP %i is retried (headers %j)', async (status, headers) => {
    srv.handler = failFirst(2, (res) => res.writeHead(status, headers).end('busy'));
    const f = openFile(`${srv.base}/d.bin`, FAST);
    expect(same(await f.read(1000, 2000), DATA.subarray(1000, 2000))).toBe(true);
    expect(f.stats.retries).toBe(2);
    expect(f.stats.requests).toBe(3);
    expect(srv.state.log.length).toBe(3);
  });

  test('Retry-After is honoured, capped by maxRetryDelay; otherwise capped exponential backoff with jitter', () => {
    const opts = { retryDelay: 100, maxRetryDelay: 5000 };
    expect(backoff(1, opts, parseRetryAfter('2'))).toBe(2000);
    expect(backoff(1, opts, parseRetryAfter('120'))).toBe(5000);
    expect(backoff(3, opts, parseRetryAfter(new Date(Date.now() + 3_600_000).toUTCString()))).toBe(5000);
    expect(parseRetryAfter('soon')).toBeNull();
    for (let attempt = 1; attempt <= 8; attempt++) {
      const d = backoff(attempt, opts, null);
      const step = 100 * 2 ** (attempt - 1);
      expect(d).toBeGreaterThanOrEqual(Math.min(5000, step / 2));
      expect(d).toBeLessThanOrEqual(Math.min(5000, step));
    }
  });

  test.each([400, 401, 403, 405])('HTTP %i is not retried', async (status) => {
    srv.handler = (req, res) => res.writeHead(status).end();
    const f = openFile(`${srv.base}/d.bin`, FAST);
    const err = await rejection(f.read(0, 10));
    expect(err).toBeInstanceOf(IoError);
    expect(err.code).toBe('ERR_NETWORK');
    expect(err.status).toBe(status);
    expect(err.file).toBe(`${srv.base}/d.bin`);
    expect(err.message).toContain(`HTTP ${status}`);
    expect(srv.state.log.length).toBe(1);
  });

  test('404 names the URL and is not retried', async () => {
    srv.handler = (req, res) => res.writeHead(404).end();
    const err = await rejection(openFile(`${srv.base}/missing.bin`, FAST).read(0, 1));
    expect(err.message).toBe(`file missing (HTTP 404 Not Found at ${srv.base}/missing.bin)`);
    expect(err.code).toBe('ERR_NOT_FOUND');
    expect(err.status).toBe(404);
    expect(srv.state.log.length).toBe(1);
  });

  test('retries: 0 turns retrying off; exhausted retries give the last error', async () => {
    srv.handler = (req, res) => res.writeHead(503).end();
    const off = await rejection(openFile(`${srv.base}/d.bin`, { ...FAST, retries: 0 }).read(0, 1));
    expect(off.message).toBe(`HTTP 503 Service Unavailable (${srv.base}/d.bin)`);
    expect(srv.state.log.length).toBe(1);
    srv.handler = (req, res) => res.writeHead(503).end();
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, retries: 2 });
    const err = await rejection(f.read(0, 1));
    expect(err.message).toMatch(/HTTP 503 Service Unavailable .*\[gave up after 3 attempts\]/);
    expect(f.stats.retries).toBe(2);
    expect(srv.state.log.length).toBe(3);
  });

  test('connection reset is retried', async () => {
    srv.handler = failFirst(1, (res, req) => req.socket.destroy());
    const f = openFile(`${srv.base}/d.bin`, FAST);
    expect(same(await f.read(5, 15), DATA.subarray(5, 15))).toBe(true);
    expect(f.stats.retries).toBe(1);
    expect(f.stats.requests).toBe(2); // the reset one counts: it was sent
  });

  test('a body shorter than asked is retried, then a clear error', async () => {
    const cut = (res, req) => {
      res.writeHead(206, { 'Content-Range': 'bytes 0-999/10000', 'Content-Length': '1000' });
      res.write(DATA.subarray(0, 400));
      setTimeout(() => req.socket.destroy(), 5);
    };
    srv.handler = failFirst(1, cut);
    const ok = openFile(`${srv.base}/d.bin`, FAST);
    expect(same(await ok.read(0, 1000), DATA.subarray(0, 1000))).toBe(true);
    expect(ok.stats.retries).toBe(1);
    srv.handler = (req, res) => cut(res, req);
    const err = await rejection(openFile(`${srv.base}/d.bin`, FAST).read(0, 1000));
    expect(err).toBeInstanceOf(IoError);
    expect(err.message).toMatch(/^truncated HTTP body: got 400 of 1000 bytes \(Content-Length\) from http:\/\/127\.0\.0\.1:\d+\/d\.bin \[gave up after 4 attempts\]$/);
    // A 206 for fewer bytes than asked (with consistent headers) is no better.
    srv.handler = (req, res) => {
      res.writeHead(206, { 'Content-Range': 'bytes 0-499/10000', 'Content-Length': '500' });
      res.end(DATA.subarray(0, 500));
    };
    const short = await rejection(openFile(`${srv.base}/d.bin`, FAST).read(0, 1000));
    expect(short.message).toMatch(/asked for bytes 0-999, server sent 0-499/);
    expect(srv.state.log.length).toBe(4);
  });

  test('a wrong Content-Range is retried and never returned as data', async () => {
    let n = 0;
    srv.handler = (req, res) => {
      if (n++ === 0) {
        res.writeHead(206, { 'Content-Range': 'bytes 1-10/10000', 'Content-Length': '10' });
        return res.end(DATA.subarray(1, 11));
      }
      return serveRange(req, res, DATA);
    };
    const f = openFile(`${srv.base}/d.bin`, FAST);
    expect(same(await f.read(0, 10), DATA.subarray(0, 10))).toBe(true);
    expect(f.stats.retries).toBe(1);
  });

  test('timeout per request: a slow first byte is retried, then "timed out"', async () => {
    const slow = new Set();
    srv.handler = (req, res) => slow.add(res); // never answers
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, timeout: 60, retries: 1 });
    const err = await rejection(f.read(0, 10));
    expect(err.code).toBe('ERR_NETWORK');
    expect(err.message).toMatch(/^HTTP request timed out after 60 ms \(http:\/\/127\.0\.0\.1:\d+\/d\.bin\) \[gave up after 2 attempts\]$/);
    expect(f.stats.retries).toBe(1);
    for (const res of slow) res.destroy();
  });

  test('the timeout is a silence: a body that keeps arriving is read past it; one that stops mid-way times out', async () => {
    // 10 pieces, 40 ms apart: 400 ms in all, each gap well inside a timeout of 150 ms.
    const trickle = (req, res, stopAfter = Infinity) => {
      res.writeHead(200, { 'Content-Length': String(DATA.length) });
      const piece = Math.ceil(DATA.length / 10);
      let k = 0;
      const next = () => {
        if (res.destroyed || k === stopAfter) return;
        res.write(DATA.subarray(k * piece, (k + 1) * piece));
        if (++k * piece >= DATA.length) res.end();
        else setTimeout(next, 40);
      };
      next();
    };
    srv.handler = (req, res) => trickle(req, res);
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, timeout: 150, retries: 0 });
    const t0 = performance.now();
    expect(same(await f.readAll(), DATA)).toBe(true);
    expect(performance.now() - t0).toBeGreaterThan(300); // longer than the timeout, and not cut
    const open = new Set();
    srv.handler = (req, res) => {
      open.add(res);
      trickle(req, res, 3); // 3 pieces, then silence
    };
    const g = openFile(`${srv.base}/e.bin`, { ...FAST, timeout: 150, retries: 1 });
    const err = await rejection(g.readAll());
    expect(err.code).toBe('ERR_NETWORK');
    expect(err.message).toMatch(/timed out after 150 ms .*\[gave up after 2 attempts\]$/);
    for (const res of open) res.destroy();
  });

  test('AbortSignal cancels what is in flight (option and per call), code ERR_ABORTED', async () => {
    const pending = new Set();
    srv.handler = (req, res) => pending.add(res);
    const ctl = new AbortController();
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, signal: ctl.signal });
    const p = f.read(0, 10);
    setTimeout(() => ctl.abort(), 20);
    const err = await rejection(p);
    expect(err).toBeInstanceOf(IoError);
    expect(err.code).toBe('ERR_ABORTED');
    expect(err.message).toBe(`HTTP request aborted (${srv.base}/d.bin)`);
    await expect(f.read(0, 10)).rejects.toMatchObject({ code: 'ERR_ABORTED' });

    const call = new AbortController();
    const g = openFile(`${srv.base}/d.bin`, FAST);
    const q = g.read(0, 10, { signal: call.signal });
    setTimeout(() => call.abort(), 20);
    const e2 = await rejection(q);
    expect(e2.code).toBe('ERR_ABORTED');
    expect(e2.file).toBe(`${srv.base}/d.bin`);
    for (const res of pending) res.destroy();
  });
});

describe('HTTP consistency', () => {
  // A server whose file is replaced after `after` requests; honours If-Range when asked to.
  function replacing(after, { honourIfRange, validator }) {
    let n = 0;
    const v1 = pattern(10000, 1);
    const v2 = pattern(10000, 2);
    const tag = (v) => (validator === 'etag' ? { ETag: `"v${v}"` } : { 'Last-Modified': new Date(Date.UTC(2024, 0, v)).toUTCString() });
    return (req, res) => {
      const v = n++ < after ? 1 : 2;
      const current = tag(v);
      const cond = req.headers['if-range'];
      if (honourIfRange && cond && cond !== Object.values(current)[0]) {
        res.writeHead(200, { 'Content-Length': '10000', ...current });
        return res.end(v === 1 ? v1 : v2);
      }
      return serveRange(req, res, v === 1 ? v1 : v2, current);
    };
  }

  test.each([
    ['ETag', 'etag', true],
    ['ETag', 'etag', false],
    ['Last-Modified', 'date', true],
    ['Last-Modified', 'date', false],
  ])('a file replaced mid-read (%s, server honours If-Range: %s) gives ERR_CHANGED, never mixed bytes', async (_l, validator, honourIfRange) => {
    srv.handler = replacing(1, { honourIfRange, validator });
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, cacheBytes: 0 });
    const first = await f.read(0, 100);
    expect(same(first, pattern(10000, 1).subarray(0, 100))).toBe(true);
    const err = await rejection(f.read(100, 200));
    expect(err).toBeInstanceOf(IoError);
    expect(err.code).toBe('ERR_CHANGED');
    expect(err.file).toBe(`${srv.base}/d.bin`);
    expect(err.message).toMatch(/^file changed on the server while reading \((ETag "v1" at first, now ETag "v2"|Last-Modified .* at first, now Last-Modified .*)\)/);
    // The second request carried the pinned validator; it was not retried.
    expect(srv.state.log[1].ifRange).toBe(validator === 'etag' ? '"v1"' : new Date(Date.UTC(2024, 0, 1)).toUTCString());
    expect(srv.state.log.length).toBe(2);
    // And it stays an error: no later read mixes in the new version.
    await expect(f.read(200, 300)).rejects.toMatchObject({ code: 'ERR_CHANGED' });
  });

  test('a server that ignores Range: the whole file once, later ranges from memory', async () => {
    srv.handler = (req, res) => res.writeHead(200, { 'Content-Length': '10000' }).end(DATA);
    const f = openFile(`${srv.base}/d.bin`, FAST);
    expect(same(await f.read(10, 20), DATA.subarray(10, 20))).toBe(true);
    expect(same(await f.read(5000, 9000), DATA.subarray(5000, 9000))).toBe(true);
    expect(same(f.peek(0, 10000), DATA)).toBe(true);
    expect(f.stats.requests).toBe(1);
    expect(f.stats.bytes).toBe(10000);
    expect(await f.size()).toBe(10000);
    await expect(f.read(9999, 10001)).rejects.toThrow(/needs bytes \[9999, 10001\) but the file has only 10000 bytes/);
  });

  test('size from HEAD; a server refusing HEAD gets a one-byte range instead', async () => {
    srv.handler = (req, res) => serveRange(req, res, DATA);
    expect(await openFile(`${srv.base}/d.bin`, FAST).size()).toBe(10000);
    expect(srv.state.log.map((e) => e.method)).toEqual(['HEAD']);
    srv.handler = (req, res) => (req.method === 'HEAD' ? res.writeHead(405).end() : serveRange(req, res, DATA));
    expect(await openFile(`${srv.base}/d.bin`, FAST).size()).toBe(10000);
    expect(srv.state.log.map((e) => [e.method, e.range])).toEqual([['HEAD', null], ['GET', 'bytes=0-0']]);
    // An empty file: the one-byte probe is answered 416 with the total 0.
    srv.handler = (req, res) => (req.method === 'HEAD' ? res.writeHead(405).end() : serveRange(req, res, new Uint8Array(0)));
    const empty = openFile(`${srv.base}/empty.bin`, FAST);
    expect(await empty.size()).toBe(0);
    expect(await empty.read(0, 0)).toEqual(new Uint8Array(0));
    await expect(empty.read(0, 1)).rejects.toThrow(/needs bytes \[0, 1\) but the file has only 0 bytes/);
  });

  test('CORS-hidden headers: the error says which headers to expose', async () => {
    // What a browser shows cross-origin when the server does not expose Content-Range.
    const fakeFetch = async (n = 5) => ({
      status: 206,
      statusText: 'Partial Content',
      type: 'cors',
      headers: new Headers({ 'Content-Length': String(n) }),
      body: null,
      arrayBuffer: async () => DATA.slice(0, n).buffer,
    });
    const f = openFile('https://data.example.org/m.bin', { ...FAST, retries: 0, fetch: () => fakeFetch(5) });
    const err = await rejection(f.read(0, 10));
    expect(err).toBeInstanceOf(IoError);
    expect(err.code).toBe('ERR_NETWORK');
    expect(err.message).toContain('Content-Range is hidden by CORS');
    expect(err.message).toContain('Access-Control-Expose-Headers: Content-Range, Content-Length, ETag, Accept-Ranges');
    // With the right length it still works (the body length is all there is to check).
    expect(same(await f.read(0, 5), DATA.subarray(0, 5))).toBe(true);
    const sizeErr = await rejection(openFile('https://data.example.org/m.bin', { ...FAST, retries: 0, fetch: async (u, init) => (init.method === 'HEAD' ? { status: 405, headers: new Headers(), body: null } : fakeFetch(1)) }).size());
    expect(sizeErr.message).toMatch(/cannot learn the file size.*Access-Control-Expose-Headers/);
  });

  test('maxReadBytes stops a download with a clear error', async () => {
    srv.handler = (req, res) => serveRange(req, res, DATA);
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, maxReadBytes: 1500 });
    await f.read(0, 1000);
    const err = await rejection(f.read(2000, 3000));
    expect(err.message).toMatch(/download limit reached: 1000 bytes fetched so far, 1000 more would exceed maxReadBytes=1500/);
  });

  test('maxBytes, its deprecated name, still limits and warns once', async () => {
    srv.handler = (req, res) => serveRange(req, res, DATA);
    const warnings = [];
    const spy = jest.spyOn(process, 'emitWarning').mockImplementation((message, options) => warnings.push([message, options?.code]));
    try {
      const f = openFile(`${srv.base}/d.bin`, { ...FAST, maxBytes: 1500 });
      expect(new Uint8Array(await f.read(0, 1000))).toEqual(DATA.subarray(0, 1000));
      const err = await rejection(f.read(2000, 3000));
      expect(err.message).toMatch(/1000 more would exceed maxReadBytes=1500/);
      openFile(`${srv.base}/d.bin`, { ...FAST, maxBytes: 10 });
    } finally {
      spy.mockRestore();
    }
    expect(warnings).toEqual([['numdecode: io option maxBytes is deprecated; use maxReadBytes', 'NUMDECODE_DEPRECATED']]);
  });
});

describe('efficiency', () => {
  test('readRanges merges close ranges into one request and keeps far ones apart', async () => {
    srv.handler = (req, res) => serveRange(req, res, DATA);
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, gap: 100, cacheBytes: 0 });
    const ranges = [[500, 600], [0, 10], [650, 700], [20, 30], [5000, 5001], [640, 660]];
    const got = await f.readRanges(ranges);
    got.forEach((b, i) => expect(same(b, DATA.subarray(...ranges[i]))).toBe(true));
    expect(srv.state.log.map((e) => e.range).sort()).toEqual(['bytes=0-29', 'bytes=500-699', 'bytes=5000-5000']);
    expect(f.stats.requests).toBe(3);
  });

  test('requests per origin are capped (concurrency)', async () => {
    srv.handler = (req, res) => setTimeout(() => serveRange(req, res, DATA), 15);
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, concurrency: 2, cacheBytes: 0 });
    const g = openFile(`${srv.base}/e.bin`, { ...FAST, concurrency: 2, cacheBytes: 0 });
    const reads = [];
    for (let i = 0; i < 10; i++) reads.push(f.read(i * 100, i * 100 + 50), g.read(i * 100, i * 100 + 50));
    const out = await Promise.all(reads);
    out.forEach((b, k) => expect(same(b, DATA.subarray(Math.floor(k / 2) * 100, Math.floor(k / 2) * 100 + 50))).toBe(true));
    expect(srv.state.log.length).toBe(20);
    expect(srv.state.peak).toBe(2);
  });

  test('the default cap: 64 requests in flight in Node, 6 where a browser sends them', async () => {
    srv.handler = (req, res) => setTimeout(() => serveRange(req, res, DATA), 30);
    const ranges = Array.from({ length: 20 }, (_, i) => [i * 400, i * 400 + 100]); // 20 ranges, none merged (gap 0)
    const readAll = async () => {
      const f = openFile(`${srv.base}/d.bin`, { ...FAST, cacheBytes: 0, gap: 0 });
      const got = await f.readRanges(ranges);
      got.forEach((b, i) => expect(same(b, DATA.subarray(...ranges[i]))).toBe(true));
      return srv.state.peak;
    };
    expect(await readAll()).toBeGreaterThan(6); // 20 asked for together (a loaded machine may answer some before the last is sent); 6 before
    srv.state.peak = 0;
    globalThis.document = {}; // a page: its network stack allows ~6 per host over HTTP/1.1
    try {
      expect(await readAll()).toBe(6);
    } finally {
      delete globalThis.document;
    }
  });

  test('identical requests in flight are shared', async () => {
    srv.handler = (req, res) => setTimeout(() => serveRange(req, res, DATA), 10);
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, cacheBytes: 0 });
    const [a, b, c] = await Promise.all([f.read(100, 200), f.read(100, 200), f.read(120, 180)]);
    expect(same(a, DATA.subarray(100, 200)) && same(b, a) && same(c, DATA.subarray(120, 180))).toBe(true);
    expect(srv.state.log.length).toBe(1);
  });

  test('a shared request survives one caller aborting; it is cancelled when every caller has', async () => {
    const held = [];
    srv.handler = (req, res) => held.push(() => serveRange(req, res, DATA));
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, cacheBytes: 0 });
    const one = new AbortController();
    const a = f.read(100, 200, { signal: one.signal });
    const b = f.read(100, 200);
    await until(() => held.length === 1);
    one.abort();
    await expect(a).rejects.toMatchObject({ name: 'IoError', code: 'ERR_ABORTED' });
    held.shift()();
    expect(same(await b, DATA.subarray(100, 200))).toBe(true);
    expect(srv.state.log.length).toBe(1);

    const c1 = new AbortController();
    const c2 = new AbortController();
    const c = f.read(300, 400, { signal: c1.signal });
    const d = f.read(300, 400, { signal: c2.signal });
    await until(() => held.length === 1);
    expect(srv.state.inFlight).toBe(1);
    c1.abort();
    c2.abort();
    await expect(c).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    await expect(d).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    // The request itself was cancelled: the server sees its connection close.
    await until(() => srv.state.inFlight === 0);
    expect(srv.state.inFlight).toBe(0);
    expect(srv.state.log.length).toBe(2);
    expect(f.stats.retries).toBe(0);
  });

  test('readAll(): one download for every caller; one caller aborting leaves the others theirs, all aborting cancels it', async () => {
    const held = [];
    srv.handler = (req, res) => held.push(() => serveRange(req, res, DATA));
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, cacheBytes: 0 });
    const one = new AbortController();
    const a = f.readAll({ signal: one.signal });
    const b = f.readAll();
    await until(() => held.length === 1);
    one.abort();
    await expect(a).rejects.toMatchObject({ name: 'IoError', code: 'ERR_ABORTED' });
    held.shift()();
    expect(same(await b, DATA)).toBe(true);
    expect(srv.state.log.map((l) => l.range)).toEqual([null]);

    const g = openFile(`${srv.base}/e.bin`, { ...FAST, cacheBytes: 0 });
    const [c1, c2] = [new AbortController(), new AbortController()];
    const c = g.readAll({ signal: c1.signal });
    const d = g.readAll({ signal: c2.signal });
    await until(() => held.length === 1);
    c1.abort();
    c2.abort();
    await expect(c).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    await expect(d).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    await until(() => srv.state.inFlight === 0); // the request itself was cancelled
    held.shift()?.(); // (its socket is gone)
    srv.handler = (req, res) => serveRange(req, res, DATA);
    expect(same(await g.readAll(), DATA)).toBe(true); // and a later call downloads it again
  });

  test('a range waiting on a whole download is not failed by the whole download\'s callers aborting', async () => {
    const held = [];
    srv.handler = (req, res) => held.push(() => serveRange(req, res, DATA));
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, cacheBytes: 0 });
    const one = new AbortController();
    const all = f.readAll({ signal: one.signal });
    await until(() => held.length === 1);
    const range = f.read(10, 20); // no signal of its own: waits on the download under way
    one.abort();
    await expect(all).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    await until(() => held.length === 2); // it asked for its range itself
    held.shift()?.(); // (the cancelled download's socket is gone)
    held.shift()();
    expect(same(await range, DATA.subarray(10, 20))).toBe(true);
    expect(srv.state.log.map((l) => l.range)).toEqual([null, 'bytes=10-19']);
  });

  test('a read that starts in the tick its predecessor is aborted gets a download of its own (cancel, then ask again)', async () => {
    srv.handler = (req, res) => setTimeout(() => serveRange(req, res, DATA), 20);
    for (const way of ['readAll', 'read']) {
      const f = openFile(`${srv.base}/${way}.bin`, { ...FAST, cacheBytes: 0 });
      const readIt = (o) => (way === 'readAll' ? f.readAll(o) : f.read(100, 200, o));
      const want = way === 'readAll' ? DATA : DATA.subarray(100, 200);
      const old = new AbortController();
      const first = readIt({ signal: old.signal });
      old.abort();
      const again = readIt(); // the same tick: must not join the download being cancelled
      await expect(first).rejects.toMatchObject({ code: 'ERR_ABORTED' });
      expect(same(await again, want)).toBe(true);
    }
  });

  test('the block cache is an LRU bounded in bytes', async () => {
    srv.handler = (req, res) => serveRange(req, res, DATA);
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, cacheBytes: 250 });
    for (const s of [0, 100, 200]) await f.read(s, s + 100); // 300 bytes: the first is evicted
    expect(f.peek(0, 100)).toBeNull();
    expect(same(f.peek(100, 300), DATA.subarray(100, 300))).toBe(true); // two entries together
    expect(f._ctx.cache.bytes).toBeLessThanOrEqual(250);
    await f.read(100, 200); // cached: no request, and now most recently used
    await f.read(0, 100); // refetched: evicts 200-300, the least recently used
    expect(f.stats.requests).toBe(4);
    expect(f.peek(200, 300)).toBeNull();
    expect(same(f.peek(100, 200), DATA.subarray(100, 200))).toBe(true);
  });

  test('cache lookups: always the right bytes, the last put always found, joins of neighbours, bound kept', () => {
    let seed = 12345;
    const rand = (n) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const files = { f0: pattern(10000, 5), f1: pattern(10000, 6) };
    const cache = new RangeCache(4000);
    let hits = 0;
    let joined = 0;
    let last = null;
    for (let step = 0; step < 3000; step++) {
      const file = `f${rand(2)}`;
      const s = 100 * rand(90);
      const e = Math.min(10000, s + 100 * (1 + rand(6)));
      const op = rand(3);
      if (op === 0) {
        cache.put(file, s, files[file].subarray(s, e));
        last = [file, s, e];
      } else {
        // A range inside the last put (must hit) or anywhere (may hit; then must be exact).
        const [f, a, b] = op === 1 && last ? last : [file, s, e];
        const x = a + rand(b - a);
        const y = x + 1 + rand(b - x);
        const got = cache.get(f, x, y);
        if (op === 1 && last) expect(got).not.toBeNull();
        if (got) {
          hits++;
          expect(same(got, files[f].subarray(x, y))).toBe(true);
          if (![...cache.lru.values()].some((en) => en.file === f && en.start <= x && en.end >= y)) joined++;
        }
      }
      expect(cache.bytes).toBeLessThanOrEqual(4000);
      expect(cache.bytes).toBe([...cache.lru.values()].reduce((t, en) => t + en.data.length, 0));
    }
    expect(hits).toBeGreaterThan(500);
    expect(joined).toBeGreaterThan(0); // some hits were assembled from neighbouring entries
  });

  test('over HTTP, bytes cached at a range\'s edges are not asked for again; the answer is stitched exactly', async () => {
    srv.handler = (req, res) => serveRange(req, res, DATA);
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, gap: 0 });
    await f.read(9000, 10000); // a tail, as a Parquet footer's first read
    await f.read(100, 300);
    const cases = [
      [5000, 9500, 'bytes=5000-8999'], // its end cached: only the front is asked for
      [200, 1000, 'bytes=300-999'], // its start cached
      [150, 9200, 'bytes=300-8999'], // both
    ];
    for (const [start, end, asked] of cases) {
      srv.state.log.length = 0;
      const got = await f.read(start, end);
      expect(same(got, DATA.subarray(start, end))).toBe(true);
      expect(srv.state.log.map((e) => e.range)).toEqual([asked]);
    }
    // Through readRanges too, and a range cached whole costs nothing.
    srv.state.log.length = 0;
    const [a, b] = await f.readRanges([[9100, 9900], [50, 250]]);
    expect(same(a, DATA.subarray(9100, 9900)) && same(b, DATA.subarray(50, 250))).toBe(true);
    expect(srv.state.log.map((e) => e.range)).toEqual(['bytes=50-99']);
    // The cache's edges never reach past the range, and a miss in the middle is left alone.
    const cache = new RangeCache(1 << 20);
    cache.put('x', 0, DATA.subarray(0, 100));
    cache.put('x', 400, DATA.subarray(400, 500));
    expect(cache.edges('x', 50, 450)).toMatchObject({ head: 100, tail: 400 });
    expect(cache.edges('x', 120, 380)).toMatchObject({ head: 120, tail: 380, first: null, last: null });
    expect(cache.edges('x', 20, 60)).toMatchObject({ head: 60 });
  });

  test('blockSize widens fetches to aligned blocks (read-ahead)', async () => {
    srv.handler = (req, res) => serveRange(req, res, DATA);
    const f = openFile(`${srv.base}/d.bin`, { ...FAST, blockSize: 1024 });
    await f.size();
    expect(same(await f.read(1030, 1040), DATA.subarray(1030, 1040))).toBe(true);
    expect(same(await f.read(2000, 2040), DATA.subarray(2000, 2040))).toBe(true);
    expect(same(await f.read(9990, 10000), DATA.subarray(9990, 10000))).toBe(true);
    expect(srv.state.log.map((e) => e.range)).toEqual([null, 'bytes=1024-2047', 'bytes=9216-9999']);
  });

  test('a directory shares stats (keyed by file name), cache and options', async () => {
    const files = { a: pattern(300, 3), b: pattern(500, 4) };
    srv.handler = (req, res) => {
      const name = req.url.split('/').pop();
      return files[name] ? serveRange(req, res, files[name]) : res.writeHead(404).end();
    };
    const d = openDirectory(`${srv.base}/dir`, FAST);
    expect(same(await d.file('a').read(0, 300), files.a)).toBe(true);
    expect(same(await d.file('b').read(100, 200), files.b.subarray(100, 200))).toBe(true);
    expect(d.stats).toEqual({ requests: 2, bytes: 400, retries: 0, roundTrips: 2, files: { a: { requests: 1, bytes: 300 }, b: { requests: 1, bytes: 100 } } });
    // A directory's file is named by its name there; the message says its URL.
    const err = await rejection(d.file('c').size());
    expect(err.file).toBe('c');
    expect(err.code).toBe('ERR_NOT_FOUND');
    expect(err.message).toBe(`c: file missing (HTTP 404 Not Found at ${srv.base}/dir/c)`);
    expect(() => d.file('../x')).toThrow(TypeError);
  });
});
