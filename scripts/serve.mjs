#!/usr/bin/env node
// A tiny static file server for the demo, on 127.0.0.1 only. Serves the project root (so web/
// can import ../js and ../dist) and the shared test corpus under /corpus/ when it is beside the
// project. Supports single HTTP Range requests (the BPCells reader fetches slices of files).
//
//   node scripts/serve.mjs [--port N]   (default 8080, or a free port if that is taken; 0 = any free port)
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DEFAULT_PORT = 8080;
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

/**
 * Parses a Range header against a file size. Returns null to serve the whole file (no header,
 * or a form we do not support such as several ranges), 'unsatisfiable', or {start, end}
 * (inclusive).
 */
export function parseRange(header, size) {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null; // multiple ranges or another unit: a 200 with the whole file is allowed
  const [, first, last] = m;
  if (first === '' && last === '') return null;
  let start;
  let end;
  if (first === '') {
    // Suffix range: the last N bytes.
    const n = Number(last);
    if (n === 0) return 'unsatisfiable';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (last !== '' && Number(last) < start) return null; // invalid range: ignore the header
  }
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

// URL path -> file path inside one of the mounts, or null if it would escape them.
function resolvePath(mounts, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  for (const [prefix, dir] of mounts) {
    if (decoded === prefix.slice(0, -1) || decoded.startsWith(prefix)) {
      const rel = decoded.slice(prefix.length);
      const file = path.resolve(dir, '.' + path.posix.sep + rel);
      if (file !== dir && !file.startsWith(dir + path.sep)) return null;
      return file;
    }
  }
  return null;
}

/**
 * Creates (does not start) the server. mounts: [[urlPrefix ending in '/', directory], ...],
 * longest prefix first.
 */
export function createStaticServer({ mounts }) {
  const sorted = mounts
    .map(([prefix, dir]) => [prefix, path.resolve(dir)])
    .sort((a, b) => b[0].length - a[0].length);
  return http.createServer(async (req, res) => {
    const send = (status, text, headers = {}) => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
      res.end(req.method === 'HEAD' ? undefined : text + '\n');
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed', { Allow: 'GET, HEAD' });
    const urlPath = new URL(req.url, 'http://localhost').pathname;
    let file = resolvePath(sorted, urlPath);
    if (file === null) return send(404, 'not found');
    let info;
    try {
      info = await stat(file);
      if (info.isDirectory()) {
        if (!urlPath.endsWith('/')) return send(301, 'moved', { Location: urlPath + '/' });
        file = path.join(file, 'index.html');
        info = await stat(file);
      }
    } catch {
      return send(404, 'not found');
    }
    const headers = {
      'Content-Type': MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'no-cache',
      'Last-Modified': info.mtime.toUTCString(),
    };
    const range = parseRange(req.headers.range, info.size);
    if (range === 'unsatisfiable') {
      return send(416, 'range not satisfiable', { 'Content-Range': `bytes */${info.size}` });
    }
    let status = 200;
    let start = 0;
    let end = info.size - 1;
    if (range) {
      status = 206;
      ({ start, end } = range);
      headers['Content-Range'] = `bytes ${start}-${end}/${info.size}`;
    }
    headers['Content-Length'] = String(info.size === 0 ? 0 : end - start + 1);
    res.writeHead(status, headers);
    if (req.method === 'HEAD' || info.size === 0) return res.end();
    const stream = createReadStream(file, { start, end });
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });
}

/** The demo's mounts: the project at /, the shared corpus at /corpus/ if present. */
export async function defaultMounts() {
  const mounts = [['/', projectRoot]];
  const corpus = path.resolve(projectRoot, '../shared/corpus');
  try {
    if ((await stat(corpus)).isDirectory()) mounts.push(['/corpus/', corpus]);
  } catch {
    // no corpus beside the project: serve the project only
  }
  return mounts;
}

async function main() {
  const args = process.argv.slice(2);
  let port = null;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--port' && i + 1 < args.length) port = Number(args[++i]);
    else if (args[i].startsWith('--port=')) port = Number(args[i].slice(7));
    else {
      process.stderr.write('usage: node scripts/serve.mjs [--port N]\n');
      process.exit(2);
    }
  }
  if (port !== null && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    process.stderr.write(`serve: bad port ${args.join(' ')}\n`);
    process.exit(2);
  }
  const server = createStaticServer({ mounts: await defaultMounts() });
  server.on('error', (err) => {
    if (err.code === 'EADDRINUSE' && port === null) {
      // The default port is taken: any free port will do.
      port = 0;
      server.listen(0, '127.0.0.1');
      return;
    }
    process.stderr.write(`serve: ${err.message}\n`);
    process.exit(1);
  });
  server.on('listening', () => {
    process.stdout.write(`numdecode demo: http://127.0.0.1:${server.address().port}/web/  (Ctrl-C to stop)\n`);
  });
  server.listen(port ?? DEFAULT_PORT, '127.0.0.1');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
