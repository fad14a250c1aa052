// A programmable HTTP server on 127.0.0.1 for the js/io tests: each test sets `server.handler`;
// serveRange() answers a Range request from a buffer the way a correct static server does.
//
// Round trips are counted, not timed: `state.waves` counts requests that arrive while no other is
// being answered (a client that asks its questions together makes one wave; one that waits for
// each answer makes one wave per request). `server.delay = ms` holds every answer back that long,
// so that requests sent together surely arrive inside one wave (issue 27).
import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export async function startServer() {
  const state = { handler: null, log: [], inFlight: 0, peak: 0, waves: 0, delay: 0, sockets: new Set() };
  const server = http.createServer((req, res) => {
    if (state.inFlight === 0) state.waves += 1;
    state.inFlight += 1;
    state.peak = Math.max(state.peak, state.inFlight);
    // Out of flight once the answer is handed over (res.end, before the client can see it and
    // ask again: 'close' can come after the client's next request, merging two waves), or when
    // the connection ends without one.
    let answered = false;
    const done = () => {
      if (answered) return;
      answered = true;
      state.inFlight -= 1;
    };
    const end = res.end;
    res.end = function (...args) {
      done();
      return end.apply(this, args);
    };
    res.on('close', done);
    state.log.push({ method: req.method, url: req.url, range: req.headers.range ?? null, ifRange: req.headers['if-range'] ?? null });
    const handler = state.handler;
    if (state.delay > 0) setTimeout(() => handler(req, res), state.delay);
    else handler(req, res);
  });
  server.on('connection', (s) => {
    state.sockets.add(s);
    s.on('close', () => state.sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    base: `http://127.0.0.1:${server.address().port}`,
    set handler(fn) {
      state.handler = fn;
      state.log = [];
      state.peak = 0;
      state.waves = 0;
    },
    /** ms each answer waits before the handler runs (0: none). */
    set delay(ms) {
      state.delay = ms;
    },
    async close() {
      for (const s of state.sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * 206/200/416 for `data` as a Range-capable server would send it, plus `extra` headers:
 * `bytes=a-b`, `bytes=a-` (to the end) and `bytes=-n` (the last n bytes, all of a shorter file).
 */
export function serveRange(req, res, data, extra = {}) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  if (req.method === 'HEAD') {
    res.writeHead(200, { 'Content-Length': String(data.length), 'Accept-Ranges': 'bytes', ...extra });
    return res.end();
  }
  if (!m || (m[1] === '' && m[2] === '')) {
    res.writeHead(200, { 'Content-Length': String(data.length), ...extra });
    return res.end(data);
  }
  const suffix = m[1] === '';
  const start = suffix ? Math.max(0, data.length - Number(m[2])) : Number(m[1]);
  if (start >= data.length || (suffix && Number(m[2]) === 0)) {
    res.writeHead(416, { 'Content-Range': `bytes */${data.length}`, ...extra });
    return res.end();
  }
  const end = suffix || m[2] === '' ? data.length - 1 : Math.min(Number(m[2]), data.length - 1);
  res.writeHead(206, {
    'Content-Range': `bytes ${start}-${end}/${data.length}`,
    'Content-Length': String(end - start + 1),
    ...extra,
  });
  return res.end(data.subarray(start, end + 1));
}

/** Deterministic test bytes: byte i is a hash of i, so any misplaced byte shows. */
export function pattern(n, salt = 0) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (Math.imul(i + salt * 7919, 2654435761) >>> 24) & 0xff;
  return out;
}

/**
 * Answers with the file of folder `root` that the request's URL path names (Range requests as
 * serveRange does them); 404 for what is not there or lies outside `root`. For tests that serve
 * a corpus folder over HTTP: `server.handler = (req, res) => serveDirectory(req, res, dir)`.
 */
export function serveDirectory(req, res, root) {
  const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (!file.startsWith(root + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404);
    return res.end();
  }
  return serveRange(req, res, readFileSync(file));
}
