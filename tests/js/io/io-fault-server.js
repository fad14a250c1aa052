// A fault-injecting HTTP server on 127.0.0.1 for the I/O layer's fault tests (Node and Chromium).
// Serves the files of one directory (and its subdirectories: a Zarr store) under /data/, answering
// ranges `bytes=a-b`, `a-` and the last n `-n`; a seeded `rate` of the requests gets a fault:
//   reset        connection destroyed before any answer
//   http500      500 without Retry-After
//   http503      503 with Retry-After: 1 (the client caps it)
//   http429      429 with Retry-After: 0
//   truncate     headers promise the whole body, half of it arrives, then the connection drops
//   short        a consistent 206 for fewer bytes than asked
//   badrange     a 206 whose Content-Range (and bytes) start one byte late
//   slow         the first byte comes after `slowMs` (past the client's timeout)
//   norange      Range ignored: 200 with the whole file
//   replaced     this answer comes from a new version of the file (new ETag, other bytes), as when
//                a file is replaced between two reads; only on requests that carry If-Range
//                (the client has pinned a version), half honouring If-Range (200) and half not (206)
// Every other request is answered correctly (206 / 200 / 416, ETag, Last-Modified, CORS headers).
// `fallback` (optional) answers paths outside /data/ (e.g. the project's static server); `cors`
// is 'expose' (default), 'hidden' or 'none'.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { rng } from '../helpers/seeded-random.js';

export const FAULT_KINDS = ['reset', 'http500', 'http503', 'http429', 'truncate', 'short', 'badrange', 'slow', 'norange', 'replaced'];
const NEEDS_RANGE = new Set(['short', 'badrange', 'norange']);
const EXPOSE = 'Content-Range, Content-Length, ETag, Accept-Ranges, Last-Modified';


export async function startFaultServer({ root, rate = 0.1, seed = 1, slowMs = 1000, kinds = FAULT_KINDS, fallback = null, cors: corsMode = 'expose' }) {
  const files = new Map(); // name (a path under root, '/'-separated) -> { data, other }
  (function walk(dir, prefix) {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p, `${prefix}${name}/`);
      else files.set(`${prefix}${name}`, { data: readFileSync(p), other: null });
    }
  })(root, '');
  const random = rng(seed);
  const injected = Object.fromEntries(kinds.map((k) => [k, 0]));
  const stats = { requests: 0, injected };
  const sockets = new Set();
  const timers = new Set();
  const lastModified = new Date(Date.UTC(2024, 5, 1)).toUTCString();
  const newModified = new Date(Date.UTC(2025, 5, 1)).toUTCString();
  // corsMode 'expose': what a cross-origin server must send; 'hidden': allowed but nothing
  // exposed (browsers then hide Content-Range and ETag); 'none': no CORS headers at all.
  const cors =
    corsMode === 'none'
      ? {}
      : corsMode === 'hidden'
        ? { 'Access-Control-Allow-Origin': '*' }
        : { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSE };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (!url.pathname.startsWith('/data/')) {
      if (fallback) return fallback(req, res);
      res.writeHead(404).end();
      return undefined;
    }
    if (req.method === 'OPTIONS') {
      if (corsMode === 'none') return res.writeHead(405).end();
      res.writeHead(204, { ...cors, 'Access-Control-Allow-Headers': 'Range, If-Range, If-Match', 'Access-Control-Max-Age': '600' });
      return res.end();
    }
    stats.requests += 1;
    const name = decodeURIComponent(url.pathname.slice('/data/'.length));
    const file = files.get(name);
    if (!file) {
      res.writeHead(404, cors).end();
      return undefined;
    }
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? ''); // a-b, a- or the last n (-n)
    let fault = null;
    if (random() < rate) {
      const usable = kinds.filter((k) => (!NEEDS_RANGE.has(k) || m) && (k !== 'replaced' || req.headers['if-range']));
      fault = usable[Math.floor(random() * usable.length)] ?? null;
      if (fault) injected[fault] += 1;
    }
    let data = file.data;
    let etag = `"${name}-v1"`;
    let modified = lastModified;
    if (fault === 'replaced') {
      file.other ??= Buffer.from(file.data.map((b) => b ^ 0x5a));
      data = file.other;
      etag = `"${name}-v2"`;
      modified = newModified;
      if (random() < 0.5) {
        // Honours If-Range: the validator does not match, so the whole new file.
        res.writeHead(200, { ...cors, ETag: etag, 'Last-Modified': modified, 'Content-Length': String(data.length) });
        return res.end(req.method === 'HEAD' ? undefined : data);
      }
    }
    const base = { ...cors, ETag: etag, 'Last-Modified': modified, 'Accept-Ranges': 'bytes' };
    switch (fault) {
      case 'reset':
        req.socket.destroy();
        return undefined;
      case 'http500':
        res.writeHead(500, cors).end('internal error');
        return undefined;
      case 'http503':
        res.writeHead(503, { ...cors, 'Retry-After': '1' }).end('busy');
        return undefined;
      case 'http429':
        res.writeHead(429, { ...cors, 'Retry-After': '0' }).end('slow down');
        return undefined;
      case 'slow': {
        const t = setTimeout(() => {
          timers.delete(t);
          if (!res.destroyed) answer(req, res, m, data, base, null);
        }, slowMs);
        timers.add(t);
        return undefined;
      }
      default:
        return answer(req, res, m, data, base, fault);
    }
  });

  function answer(req, res, m, data, base, fault) {
    if (req.method === 'HEAD') {
      res.writeHead(200, { ...base, 'Content-Length': String(data.length) });
      return res.end();
    }
    if (!m || fault === 'norange') {
      return send(res, 200, { ...base, 'Content-Length': String(data.length) }, data, fault);
    }
    const suffix = m[1] === '';
    let start = suffix ? Math.max(0, data.length - Number(m[2])) : Number(m[1]);
    if (start >= data.length || (suffix && Number(m[2]) === 0)) {
      res.writeHead(416, { ...base, 'Content-Range': `bytes */${data.length}` });
      return res.end();
    }
    let end = suffix || m[2] === '' ? data.length - 1 : Math.min(Number(m[2]), data.length - 1);
    if (fault === 'short' && end > start) end = start + Math.floor((end - start) / 2);
    if (fault === 'badrange') {
      start += 1;
      end = Math.min(end + 1, data.length - 1);
    }
    const body = data.subarray(start, end + 1);
    const headers = { ...base, 'Content-Range': `bytes ${start}-${end}/${data.length}`, 'Content-Length': String(body.length) };
    return send(res, 206, headers, body, fault);
  }

  function send(res, status, headers, body, fault) {
    res.writeHead(status, headers);
    if (fault === 'truncate' && body.length > 1) {
      res.write(body.subarray(0, Math.floor(body.length / 2)));
      const t = setTimeout(() => {
        timers.delete(t);
        res.destroy();
      }, 5);
      timers.add(t);
      return undefined;
    }
    return res.end(body);
  }

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    stats,
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
