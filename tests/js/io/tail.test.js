// readTail (js/io/tail.js): a file's last n bytes and its size in one request over HTTP (a
// suffix range), from the cache afterwards; the plain size + read elsewhere.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IoError, openFile, readTail } from '../../../js/io/index.js';
import { pattern, serveRange, startServer } from '../helpers/io-test-server.js';

const FAST = { retryDelay: 1, maxRetryDelay: 20 };
const DATA = pattern(10000);
const same = (a, b) => a.length === b.length && Buffer.from(a).equals(Buffer.from(b));

let server;
let dir;
beforeAll(async () => {
  server = await startServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-tail-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('over HTTP', () => {
  test('one suffix range gives the size and the tail; reads inside it are served from the cache', async () => {
    server.handler = (req, res) => serveRange(req, res, DATA);
    const file = openFile(`${server.base}/f.bin`, FAST);
    const tail = await readTail(file, 3000);
    expect(tail.size).toBe(10000);
    expect(tail.start).toBe(7000);
    expect(same(tail.bytes, DATA.subarray(7000))).toBe(true);
    expect(server.state.log.map((l) => [l.method, l.range])).toEqual([['GET', 'bytes=-3000']]);
    expect(await file.size()).toBe(10000); // known now: no HEAD
    expect(same(await file.read(9000, 9500), DATA.subarray(9000, 9500))).toBe(true);
    expect(server.state.log).toHaveLength(1);
    expect(file.stats).toMatchObject({ requests: 1, bytes: 3000 });
    file.close();
  });

  test('a file shorter than n comes whole', async () => {
    const small = DATA.subarray(0, 700);
    server.handler = (req, res) => serveRange(req, res, small);
    const file = openFile(`${server.base}/small.bin`, FAST);
    const tail = await readTail(file, 4096);
    expect([tail.size, tail.start]).toEqual([700, 0]);
    expect(same(tail.bytes, small)).toBe(true);
    expect(same(await file.read(10, 20), small.subarray(10, 20))).toBe(true);
    expect(server.state.log).toHaveLength(1);
    file.close();
  });

  test('an empty file (416 bytes */0) has size 0', async () => {
    server.handler = (req, res) => serveRange(req, res, new Uint8Array(0));
    const file = openFile(`${server.base}/empty.bin`, FAST);
    const tail = await readTail(file, 100);
    expect([tail.size, tail.start, tail.bytes.length]).toEqual([0, 0, 0]);
    expect(server.state.log).toHaveLength(1);
    file.close();
  });

  test('a server that ignores Range sends the whole file once; later reads cost nothing', async () => {
    server.handler = (req, res) => {
      res.writeHead(200, { 'Content-Length': String(DATA.length) });
      res.end(DATA);
    };
    const file = openFile(`${server.base}/norange.bin`, FAST);
    const tail = await readTail(file, 100);
    expect([tail.size, tail.start]).toEqual([10000, 9900]);
    expect(same(tail.bytes, DATA.subarray(9900))).toBe(true);
    expect(same(await file.read(5, 50), DATA.subarray(5, 50))).toBe(true);
    expect(server.state.log).toHaveLength(1);
    file.close();
  });

  test('without Content-Range (hidden by CORS) the size comes from a HEAD, unless the body is the whole file', async () => {
    const hidden = (data) => (req, res) => {
      if (req.method === 'HEAD') return serveRange(req, res, data);
      const n = Number(/^bytes=-(\d+)$/.exec(req.headers.range)[1]);
      const body = data.subarray(Math.max(0, data.length - n));
      res.writeHead(206, { 'Content-Length': String(body.length) });
      return res.end(body);
    };
    server.handler = hidden(DATA);
    let file = openFile(`${server.base}/hidden.bin`, FAST);
    let tail = await readTail(file, 1000);
    expect([tail.size, tail.start]).toEqual([10000, 9000]);
    expect(same(tail.bytes, DATA.subarray(9000))).toBe(true);
    expect(server.state.log.map((l) => l.method)).toEqual(['GET', 'HEAD']);
    file.close();
    server.handler = hidden(DATA.subarray(0, 300));
    file = openFile(`${server.base}/hidden-small.bin`, FAST);
    tail = await readTail(file, 1000);
    expect([tail.size, tail.start]).toEqual([300, 0]);
    expect(server.state.log.map((l) => l.method)).toEqual(['GET']);
    file.close();
  });

  test('suffixRange: false (the default cross-origin in browsers, where bytes=-n is not CORS-safelisted) asks HEAD, then a range with a start', async () => {
    server.handler = (req, res) => serveRange(req, res, DATA);
    const file = openFile(`${server.base}/f.bin`, { ...FAST, suffixRange: false });
    const tail = await readTail(file, 3000);
    expect([tail.size, tail.start]).toEqual([10000, 7000]);
    expect(same(tail.bytes, DATA.subarray(7000))).toBe(true);
    expect(server.state.log.map((l) => [l.method, l.range])).toEqual([['HEAD', null], ['GET', 'bytes=7000-9999']]);
    file.close();
    expect(() => openFile(`${server.base}/f.bin`, { suffixRange: 'yes' })).toThrow(RangeError);
  });

  test('a Content-Range that is not the tail is retried, then an IoError', async () => {
    server.handler = (req, res) => {
      res.writeHead(206, { 'Content-Range': 'bytes 0-99/10000', 'Content-Length': '100' });
      res.end(DATA.subarray(0, 100));
    };
    const file = openFile(`${server.base}/liar.bin`, { ...FAST, retries: 2 });
    const err = await readTail(file, 100).catch((e) => e);
    expect(err).toBeInstanceOf(IoError);
    expect(err.file).toBe(`${server.base}/liar.bin`);
    expect(err.message).toMatch(/last 100 bytes.*bytes 0-99\/10000/);
    expect(server.state.log).toHaveLength(3);
    file.close();
  });
});

describe('other sources', () => {
  test('a local path, a buffer and a {size, read} object give the same tail', async () => {
    const p = path.join(dir, 'f.bin');
    writeFileSync(p, DATA);
    for (const input of [p, DATA, { size: () => DATA.length, read: (s, e) => DATA.slice(s, e) }]) {
      const file = openFile(input);
      const tail = await readTail(file, 2500);
      expect([tail.size, tail.start]).toEqual([10000, 7500]);
      expect(same(tail.bytes, DATA.subarray(7500))).toBe(true);
      file.close();
    }
  });

  test('n must be a positive integer', async () => {
    const file = openFile(DATA);
    await expect(readTail(file, 0)).rejects.toThrow(RangeError);
    await expect(readTail(file, 1.5)).rejects.toThrow(RangeError);
  });
});
