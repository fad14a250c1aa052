// parquet.open(): the footer read once, then reads of column chunks only; what the footer alone
// tells agrees with inspect(); stats count what crossed the wire (requests, bytes and round trips,
// checked against what a counting server saw), not reads answered from the cache.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { init, CODES } from '../../../js/index.js';
import { open, read, inspect, readPages, ParquetError } from '../../../js/parquet.js';
import { readJson } from '../helpers/corpus.js';
import { corpusDir, expectedColumns, expectSameBits } from './parquet-expect.js';
import { startServer, serveRange } from '../helpers/io-test-server.js';

const manifest = readJson(corpusDir, 'manifest.json');

beforeAll(() => init());

// Bytes the server sent in bodies: the length of every 206 / 200 answer it logged.
function servedBytes(log, size) {
  let n = 0;
  for (const l of log) {
    if (l.method !== 'GET') continue;
    const m = /^bytes=(\d*)-(\d*)$/.exec(l.range ?? '');
    if (!m) n += size;
    else if (m[1] === '') n += Math.min(Number(m[2]), size);
    else n += Math.min(size - 1, m[2] === '' ? size - 1 : Number(m[2])) - Number(m[1]) + 1;
  }
  return n;
}

describe('open() on the parquet-cpp corpus', () => {
  test.each(manifest.map((m) => [m.file, m]))('%s: footer facts agree with inspect(), two reads through one handle are bit-exact', async (_f, m) => {
    const file = path.join(corpusDir, m.file);
    const want = expectedColumns(m.csv, m.file.includes('float'));
    const names = Object.keys(want);
    const handle = await open(file);
    try {
      const info = await inspect(file);
      expect(handle.numRows).toBe(m.rows);
      expect(handle.size).toBe(readFileSync(file).length);
      expect(handle.schema).toEqual(info.schema);
      expect(handle.columns).toEqual(names);
      expect(handle.createdBy).toBe(info.createdBy);
      // Every footer fact of every chunk is what inspect() reports after reading the pages (the
      // ALP encoding id included).
      expect(handle.rowGroups).toEqual(info.rowGroups.map((g) => ({ ...g, columns: g.columns.map(({ pages, ...chunk }) => chunk) })));
      const footerStats = handle.stats;
      expect(footerStats.requests).toBeGreaterThan(0);
      expect(footerStats.bytes).toBeLessThan(handle.size);

      const first = await handle.read({ columns: [names[0]] });
      const second = await handle.read({ columns: names.slice(1), rowStart: 1000, rowEnd: 9000 });
      expect(first.columns[names[0]].kind).toBe('float');
      expectSameBits(first.columns[names[0]].values, want[names[0]], `${m.file} ${names[0]}`);
      for (const name of names.slice(1)) expectSameBits(second.columns[name].values, want[name].slice(1000, 9000), `${m.file} ${name}`);
      // The footer is not read again: the reads together fetch no more than their column chunks.
      const chunkBytes = (cols) => handle.rowGroups.reduce((s, g) => s + g.columns.filter((c) => cols.includes(c.column)).reduce((t, c) => t + c.compressedBytes, 0), 0);
      expect(first.stats.bytes).toBeLessThanOrEqual(chunkBytes([names[0]]));
      expect(second.stats.bytes).toBeLessThanOrEqual(chunkBytes(names.slice(1)));
      expect(handle.stats.bytes).toBe(footerStats.bytes + first.stats.bytes + second.stats.bytes);
    } finally {
      handle.close();
    }
    expect(handle.closed).toBe(true);
    const err = await handle.read().catch((e) => e);
    expect(err.code).toBe(CODES.CLOSED);
    expect(err.file).toBe(file);
    handle.close(); // a second close is harmless
  });

  test('inspect() through the handle: the pages, and only chunk bytes fetched', async () => {
    const file = path.join(corpusDir, 'alp_arade.parquet');
    const handle = await open(file);
    const info = await handle.inspect();
    handle.close();
    expect(info).toEqual({ ...(await inspect(file)), stats: info.stats });
    expect(info.rowGroups[0].columns[0].pages[0].encoding).toBe('ALP');
    expect(info.stats.bytes).toBeLessThanOrEqual(info.rowGroups.reduce((s, g) => s + g.columns.reduce((t, c) => t + c.compressedBytes, 0), 0));
  });

  test('a read aborted by its own signal fails with ERR_ABORTED; the file stays open for the next read', async () => {
    const file = path.join(corpusDir, 'alp_spotify1.parquet');
    const want = expectedColumns('alp_spotify1_expect.csv', false);
    const handle = await open(file);
    try {
      const err = await handle.read({ signal: AbortSignal.abort() }).catch((e) => e);
      expect(err.code).toBe(CODES.ABORTED);
      const r = await handle.read({ columns: ['tempo'] });
      expectSameBits(r.columns.tempo.values, want.tempo, 'tempo after an aborted read');
    } finally {
      handle.close();
    }
  });

  test("the signal given to open() stops a local file's later reads too, and its listeners go with each read", async () => {
    const file = path.join(corpusDir, 'alp_spotify1.parquet');
    const want = expectedColumns('alp_spotify1_expect.csv', false);
    const controller = new AbortController();
    const added = [];
    const removed = [];
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (type, fn, o) => (added.push(fn), add(type, fn, o));
    signal.removeEventListener = (type, fn, o) => (removed.push(fn), remove(type, fn, o));
    const handle = await open(file, { signal });
    try {
      // Before the abort, reads (with and without a signal of their own) read the file.
      const r = await handle.read({ columns: ['tempo'], signal: new AbortController().signal });
      expectSameBits(r.columns.tempo.values, want.tempo, 'tempo before the abort');
      const joinedHooks = added.length;
      expect(joinedHooks).toBeGreaterThan(0);
      expect(removed.filter((fn) => added.includes(fn)).length).toBe(joinedHooks); // unhooked after the read
      await expect(handle.read({ signal: { aborted: false } })).rejects.toThrow(new TypeError('options.signal must be an AbortSignal, got Object'));
      controller.abort(new Error('viewer closed'));
      for (const readOptions of [{}, { signal: new AbortController().signal }]) {
        for (const call of [() => handle.read(readOptions), () => handle.readView(readOptions)]) {
          const err = await call().catch((e) => e);
          expect(err).toBeInstanceOf(ParquetError);
          expect(err).toMatchObject({ code: CODES.ABORTED, file });
        }
      }
    } finally {
      handle.close();
    }
  });

  test('a missing file fails at open() with ERR_NOT_FOUND naming it', async () => {
    const file = path.join(corpusDir, 'no-such.parquet');
    const err = await open(file).catch((e) => e);
    expect(err.code).toBe(CODES.NOT_FOUND);
    expect(err.file).toBe(file);
  });
});

describe('open() over HTTP: stats are what crossed the wire', () => {
  let server;
  beforeAll(async () => {
    server = await startServer();
    server.delay = 40; // requests sent together arrive in one wave
  });
  afterAll(() => server.close());

  test('open costs one request and one round trip; each read its chunks in one; a repeated read what the cache could not answer', async () => {
    const m = manifest[0];
    const bytes = readFileSync(path.join(corpusDir, m.file));
    const want = expectedColumns(m.csv, false);
    const names = Object.keys(want);
    server.handler = (req, res) => serveRange(req, res, bytes);
    const handle = await open(`${server.base}/${m.file}`);
    try {
      expect(server.state.log.map((l) => [l.method, l.range])).toEqual([['GET', 'bytes=-16384']]);
      expect(server.state.waves).toBe(1);
      expect(handle.stats).toEqual({ requests: 1, bytes: servedBytes(server.state.log, bytes.length), roundTrips: 1 });

      for (const cols of [[names[0]], names, [names[0]]]) {
        server.handler = (req, res) => serveRange(req, res, bytes); // resets the server's log and waves
        const r = await handle.read({ columns: cols });
        for (const name of cols) expectSameBits(r.columns[name].values, want[name], name);
        expect(r.stats.requests).toBe(server.state.log.length);
        expect(r.stats.bytes).toBe(servedBytes(server.state.log, bytes.length));
        expect(r.stats.roundTrips).toBe(server.state.waves);
        expect(r.stats.roundTrips).toBeLessThanOrEqual(1);
      }
    } finally {
      handle.close();
    }
  });

  test('inspect({columns}) reads and lists only those columns\' chunks: the full inspect()\'s entries, fewer bytes', async () => {
    const m = manifest[1];
    const bytes = readFileSync(path.join(corpusDir, m.file));
    const full = await inspect(bytes);
    const names = full.schema.map((c) => c.name);
    expect(names.length).toBeGreaterThan(2);
    const pick = [names[1], names[names.length - 1]];
    server.handler = (req, res) => serveRange(req, res, bytes);
    const handle = await open(`${server.base}/${m.file}`);
    try {
      const some = await handle.inspect({ columns: pick });
      expect(some.rowGroups.length).toBe(full.rowGroups.length);
      some.rowGroups.forEach((g, i) => {
        expect(g.columns).toEqual(full.rowGroups[i].columns.filter((c) => pick.includes(c.column)));
      });
      // Only their chunks crossed the wire (at most their compressed sizes, in one round trip).
      const theirs = full.rowGroups.flatMap((g) => g.columns.filter((c) => pick.includes(c.column))).reduce((n, c) => n + c.compressedBytes, 0);
      expect(some.stats.bytes).toBeGreaterThan(0);
      expect(some.stats.bytes).toBeLessThanOrEqual(theirs);
      expect(some.stats.roundTrips).toBe(1);
      const err = await handle.inspect({ columns: ['nope'] }).catch((e) => e);
      expect(err).toBeInstanceOf(RangeError);
      expect(err.message).toMatch(/no column "nope"/);
    } finally {
      handle.close();
    }
    // The standalone call takes the option too.
    expect((await inspect(bytes, { columns: [names[0]] })).rowGroups[0].columns.map((c) => c.column)).toEqual([names[0]]);
  });

  test("readPages() through the handle: the standalone call's pages; a chunk already fetched costs no request", async () => {
    const m = manifest[1];
    const bytes = readFileSync(path.join(corpusDir, m.file));
    const column = Object.keys(expectedColumns(m.csv, false))[0];
    const alone = await readPages(bytes, { column });
    expect(alone.pages.some((p) => p.alp)).toBe(true);
    server.handler = (req, res) => serveRange(req, res, bytes);
    const handle = await open(`${server.base}/${m.file}`);
    try {
      const first = await handle.readPages({ column, rowStart: 10 });
      // Its chunk: one request, one round trip, counted as the server saw them.
      expect(first.stats).toEqual({ requests: server.state.log.length - 1, bytes: servedBytes(server.state.log.slice(1), bytes.length), roundTrips: 1 });
      expect(first.stats.requests).toBeGreaterThan(0);
      const wanted = alone.pages.filter((p) => p.rowStart + p.numRows > 10);
      expect(first.pages.map((p) => [p.rowGroup, p.page, p.rowStart, p.numRows, p.encoding])).toEqual(wanted.map((p) => [p.rowGroup, p.page, p.rowStart, p.numRows, p.encoding]));
      first.pages.forEach((p, i) => {
        if (p.alp) expect(Buffer.from(p.alp).equals(Buffer.from(wanted[i].alp))).toBe(true);
        else expectSameBits(p.values, wanted[i].values, `page ${i}`);
        expect(p.valid ? Array.from(p.valid) : null).toEqual(wanted[i].valid ? Array.from(wanted[i].valid) : null);
      });
      const asked = server.state.log.length;
      const again = await handle.readPages({ column });
      expect(server.state.log.length).toBe(asked);
      expect(again.stats).toEqual({ requests: 0, bytes: 0, roundTrips: 0 });
      expect(again.pages.length).toBe(alone.pages.length);
      const err = await handle.readPages({ column: 'no such column' }).catch((e) => e);
      expect(err).toBeInstanceOf(RangeError);
      expect(err.message).toMatch(/no such column/);
    } finally {
      handle.close();
    }
    expect((await handle.readPages({ column }).catch((e) => e)).code).toBe(CODES.CLOSED);
  });

  test('read() from nothing reports the footer and chunks: two round trips, as the server counted them', async () => {
    const m = manifest[1];
    const bytes = readFileSync(path.join(corpusDir, m.file));
    server.handler = (req, res) => serveRange(req, res, bytes);
    const r = await read(`${server.base}/${m.file}`, { columns: ['tempo'] });
    expect(r.stats).toEqual({ requests: server.state.log.length, bytes: servedBytes(server.state.log, bytes.length), roundTrips: server.state.waves });
    expect(r.stats.roundTrips).toBe(2);
  });
});
