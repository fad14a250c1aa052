// numdecode/parquet: the parquet-cpp ALP corpus bit-exact against its CSVs (whole files, a row
// range across vectors, one column over HTTP), the wider shapes built in memory by
// parquet-build.js (expected values are the values written), inspect(), and damaged files.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { compressors } from 'hyparquet-compressors';
import { init, alp, ParquetError, IoError, NumdecodeError } from '../../../js/index.js';
import { read, readView, inspect, readPages, open } from '../../../js/parquet.js';
import { corpusRoot, projectRoot, readJson } from '../helpers/corpus.js';
import { buildParquet, buildStructParquet, buildListParquet } from './parquet-build.js';
import { corpusDir as dir, expectedColumns, expectSameBits } from './parquet-expect.js';
import { N, S, columnsSpec, expectColumn, expectedSlice, mixedPages } from './parquet-shapes.js';
import { startServer, serveRange } from '../helpers/io-test-server.js';

const manifest = readJson(dir, 'manifest.json');

beforeAll(() => init());

describe('parquet-cpp ALP corpus', () => {
  test.each(manifest.map((m) => [m.file, m]))('%s reads bit-exactly against its CSV', async (_f, m) => {
    const r = await read(path.join(dir, m.file));
    const isFloat = m.file.includes('float');
    const want = expectedColumns(m.csv, isFloat);
    expect(r.numRows).toBe(m.rows);
    expect(Object.keys(r.columns)).toEqual(Object.keys(want));
    for (const [name, values] of Object.entries(want)) {
      expect(r.columns[name].type).toBe(isFloat ? 'FLOAT' : 'DOUBLE');
      expect(r.columns[name].valid).toBeNull();
      expectSameBits(r.columns[name].values, values, `${m.file} ${name}`);
    }
  });

  test('a row range across ALP vectors decodes only those rows, bit-exactly', async () => {
    const m = manifest.find((x) => x.file === 'alp_spotify1.parquet');
    const want = expectedColumns(m.csv, false);
    const r = await read(path.join(dir, m.file), { columns: ['tempo', 'loudness'], rowStart: 1000, rowEnd: 9500 });
    expect(r.numRows).toBe(8500);
    expect(Object.keys(r.columns)).toEqual(['tempo', 'loudness']);
    expectSameBits(r.columns.tempo.values, want.tempo.slice(1000, 9500), 'tempo rows 1000..9500');
    expectSameBits(r.columns.loudness.values, want.loudness.slice(1000, 9500), 'loudness rows 1000..9500');
  });

  test('every kind of input reads the same bits: path, bytes, ArrayBuffer, Blob, AsyncBuffer, {size, read}', async () => {
    const m = manifest.find((x) => x.file === 'alp_float_spotify1.parquet');
    const file = path.join(dir, m.file);
    const data = new Uint8Array(readFileSync(file));
    const want = expectedColumns(m.csv, true).valence;
    const inputs = {
      path: file,
      bytes: data,
      arrayBuffer: data.slice().buffer,
      blob: new Blob([data]),
      asyncBuffer: { byteLength: data.length, slice: async (s, e) => data.slice(s, e).buffer },
      source: { size: () => data.length, read: (s, e) => data.subarray(s, e) },
    };
    for (const [kind, input] of Object.entries(inputs)) {
      const r = await read(input, { columns: ['valence'] });
      expectSameBits(r.columns.valence.values, want, `valence from ${kind}`);
    }
  });

  test('inspect lists the ALP pages: merged layout, vectors, exceptions', async () => {
    const info = await inspect(path.join(dir, 'alp_float_arade.parquet'));
    expect(info.numRows).toBe(15000);
    expect(info.schema.map((s) => [s.name, s.type, s.repetition])).toEqual(['value1', 'value2', 'value3', 'value4'].map((n) => [n, 'FLOAT', 'OPTIONAL']));
    const chunk = info.rowGroups[0].columns[0];
    expect(chunk.codec).toBe('UNCOMPRESSED');
    expect(chunk.encodings).toContain('ALP');
    expect(chunk.pages).toHaveLength(1);
    const page = chunk.pages[0];
    expect(page).toMatchObject({ type: 'data v1', encoding: 'ALP', numValues: 15000, numNulls: 0 });
    expect(page.alp).toMatchObject({ layout: 'merged', vectorSize: 1024, numVectors: 15, numElements: 15000, valid: true });
    expect(page.alp.vectors).toHaveLength(15);
    expect(page.alp.exceptions).toBe(page.alp.vectors.reduce((s, v) => s + v.exceptions, 0));
    expect(page.alp.bitsPerValue).toBeGreaterThan(0);
  });

  describe('over HTTP', () => {
    let server;
    beforeAll(async () => {
      server = await startServer();
    });
    afterAll(() => server.close());

    test('one column fetches the footer and that column chunk only, bit-exactly', async () => {
      const m = manifest.find((x) => x.file === 'alp_arade.parquet');
      const data = readFileSync(path.join(dir, m.file));
      server.handler = (req, res) => serveRange(req, res, data);
      const r = await read(`${server.base}/${m.file}`, { columns: ['value3'] });
      const want = expectedColumns(m.csv, false);
      expectSameBits(r.columns.value3.values, want.value3, 'value3 over HTTP');
      expect(r.stats.bytes).toBeLessThan(data.length / 2);
      expect(r.stats.requests).toBeLessThanOrEqual(4);
      expect(server.state.log.filter((l) => l.method === 'GET').every((l) => l.range !== null)).toBe(true);
    });

    test('a missing file is an IoError naming the URL and status', async () => {
      server.handler = (req, res) => {
        res.writeHead(404);
        res.end();
      };
      const url = `${server.base}/missing.parquet`;
      const err = await read(url).catch((e) => e);
      expect(err).toBeInstanceOf(IoError);
      expect(err.file).toBe(url);
      expect(err.status).toBe(404);
      expect(err.message).toContain(url);
    });

    test('an aborted signal stops the read with ERR_ABORTED', async () => {
      const data = readFileSync(path.join(dir, 'alp_arade.parquet'));
      server.handler = (req, res) => serveRange(req, res, data);
      const controller = new AbortController();
      controller.abort(new Error('user left'));
      const err = await read(`${server.base}/alp_arade.parquet`, { signal: controller.signal }).catch((e) => e);
      expect(err).toBeInstanceOf(NumdecodeError);
      expect(err.code).toBe('ERR_ABORTED');
    });

    test('maxReadBytes stops a read that would download more', async () => {
      const data = readFileSync(path.join(dir, 'alp_arade.parquet'));
      server.handler = (req, res) => serveRange(req, res, data);
      const err = await read(`${server.base}/alp_arade.parquet`, { maxReadBytes: 30000 }).catch((e) => e);
      expect(err).toBeInstanceOf(IoError);
      expect(err.message).toMatch(/maxReadBytes=30000/);
    });
  });
});

describe('built shapes', () => {
  test.each(['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'ZSTD', 'LZ4_RAW'])(
    '%s: nulls, v1 + v2 pages, dictionary then ALP, PLAIN / BSS beside ALP, both layouts, two row groups',
    async (codec) => {
      const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], codec, pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0 });
      const r = await read(bytes);
      expect(r.numRows).toBe(N);
      expectColumn(r.columns.d, S.d, S.valid);
      expectColumn(r.columns.f, S.f, S.valid);
      // a column numdecode leaves to hyparquet reads exactly as hyparquet reads it
      const hy = await parquetReadObjects({ file: bytes.buffer, columns: ['i'], compressors });
      expect(r.columns.i).toEqual({ kind: 'other', type: 'INT32', values: hy.map((x) => x.i), valid: null });
      expect(r.columns.d.kind).toBe('float');
      expect(r.columns.i.values).toEqual(Array.from(S.ints));
    },
  );

  test('ZSTD pages from the real zstd compressor (level 3 and 19) read bit-exactly', async () => {
    const { init: initZstd, compress: zstd } = await import('@bokuweb/zstd-wasm');
    await initZstd();
    for (const level of [3, 19]) {
      const bytes = buildParquet({
        columns: columnsSpec(false),
        rowGroups: [3500, 2500],
        codec: 'ZSTD',
        pages: mixedPages,
        dictionary: (c, g) => c === 1 && g === 0,
        compress: (codec, raw) => zstd(raw, level),
      });
      const r = await read(bytes, { columns: ['d', 'f'] });
      expectColumn(r.columns.d, S.d, S.valid);
      expectColumn(r.columns.f, S.f, S.valid);
      // a damaged frame (its magic number) is named, not decoded into garbage
      const page = (await inspect(bytes)).rowGroups[1].columns[0].pages[1];
      expect(page.type).toBe('data v1'); // its whole body is one zstd frame
      const damaged = bytes.slice();
      damaged[page.offset + page.headerBytes] ^= 0xff;
      const err = await read(damaged, { columns: ['d'] }).catch((e) => e);
      expect(err).toBeInstanceOf(ParquetError);
      expect(err).toMatchObject({ code: 'ERR_BAD_DATA', column: 'd', rowGroup: 1, page: 1 });
      expect(err.message).toMatch(/ZSTD decompression failed/);
    }
  });

  test('a file written entirely by hyparquet-writer (PLAIN, BYTE_STREAM_SPLIT, dictionary; nulls; pages; row groups) reads as hyparquet reads it', async () => {
    const n = 5000;
    const withNulls = Array.from(S.d.subarray(0, n), (v, i) => (S.valid[i] ? v : null));
    const repeated = Array.from({ length: n }, (_, i) => (i % 9 === 2 ? null : [1.5, -2.25, 1e300, Number.NaN][i % 4]));
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'plain', data: withNulls, type: 'DOUBLE', nullable: true, encoding: 'PLAIN' },
        { name: 'bss', data: Float32Array.from(S.f.subarray(0, n)), type: 'FLOAT', nullable: false, encoding: 'BYTE_STREAM_SPLIT' },
        { name: 'dict', data: repeated, type: 'DOUBLE', nullable: true },
      ],
      rowGroupSize: 3000,
      pageSize: 4000,
    });
    const info = await inspect(bytes);
    expect(info.rowGroups).toHaveLength(2);
    const encodings = info.rowGroups[0].columns.map((c) => [...new Set(c.pages.map((p) => p.encoding))]);
    expect(encodings).toEqual([['PLAIN'], ['BYTE_STREAM_SPLIT'], ['PLAIN', 'RLE_DICTIONARY']]);
    expect(info.rowGroups[0].columns[0].pages.length).toBeGreaterThan(2);
    expect(bytes).toBeInstanceOf(ArrayBuffer);
    const hy = await parquetReadObjects({ file: bytes, compressors });
    for (const [a, b] of [[0, n], [2990, 3010], [123, 4567]]) {
      const r = await read(bytes, { rowStart: a, rowEnd: b });
      for (const name of ['plain', 'bss', 'dict']) {
        const col = r.columns[name];
        const want = hy.slice(a, b).map((row) => row[name]);
        const got = Array.from(col.values, (v, i) => (col.valid && !col.valid[i] ? null : v));
        expect(got).toEqual(want);
      }
      expect(r.columns.bss.valid).toBeNull();
    }
  });

  test('REQUIRED columns: no definition levels, valid is null; a v2 page stored uncompressed in a SNAPPY chunk', async () => {
    const f = S.f.map((x, i) => (S.valid[i] ? x : 1.5));
    const bytes = buildParquet({
      columns: columnsSpec(true),
      rowGroups: [6000],
      codec: 'SNAPPY',
      pages: (c) => (c === 1 ? [{ rows: 2000, kind: 'v1' }, { rows: 2000, kind: 'v2' }, { rows: 2000, kind: 'v2', uncompressedBody: true }] : [{ rows: 6000 }]),
    });
    const pages = (await inspect(bytes)).rowGroups[0].columns[1].pages;
    expect(pages.map((p) => p.compressed)).toEqual([undefined, true, false]);
    const r = await read(bytes, { columns: ['f'] });
    expectColumn(r.columns.f, f, null);
  });

  test('pages of nulls only (ALP and PLAIN) and an empty selection', async () => {
    const n = 3000;
    const values = new Float64Array(n);
    const valid = new Uint8Array(n);
    for (let i = 1000; i < 2000; i++) {
      valid[i] = 1;
      values[i] = i / 8;
    }
    const bytes = buildParquet({
      columns: [{ name: 'x', type: 'DOUBLE', values, valid }],
      rowGroups: [n],
      pages: () => [{ rows: 1000, kind: 'v1' }, { rows: 1000, kind: 'v2' }, { rows: 1000, kind: 'v2', encoding: 'PLAIN' }],
    });
    const r = await read(bytes);
    expectColumn(r.columns.x, values, valid, 0, n);
    const nulls = await read(bytes, { rowStart: 2500, rowEnd: 2600 });
    expect(Array.from(nulls.columns.x.valid)).toEqual(new Array(100).fill(0));
    // a writer that pages by bytes may put many nulls in one small page
    const many = 200000;
    const allNull = buildParquet({ columns: [{ name: 'x', type: 'FLOAT', values: new Float32Array(many), valid: new Uint8Array(many) }], rowGroups: [many] });
    expect(allNull.length).toBeLessThan(1000);
    const r2 = await read(allNull);
    expect(r2.columns.x.values).toEqual(new Float32Array(many));
    expect(r2.columns.x.valid).toEqual(new Uint8Array(many));
    const none = await read(bytes, { rowStart: 5, rowEnd: 5 });
    expect(none.numRows).toBe(0);
    expect(none.columns.x.values).toHaveLength(0);
  });

  test('an OPTIONAL column whose nulls all lie in its last row group: rows before them read present, in one thread, a view and workers', async () => {
    const n = 6000;
    const values = Float64Array.from({ length: n }, (_, i) => Math.round(Math.sin(i / 40) * 1e4) / 100);
    const late = new Uint8Array(n).fill(1);
    for (const i of [4001, 4002, 5500, 5999]) late[i] = 0;
    const none = new Uint8Array(n).fill(1);
    const bytes = buildParquet({
      columns: [
        { name: 'late', type: 'DOUBLE', values, valid: late },
        { name: 'none', type: 'DOUBLE', values, valid: none }, // OPTIONAL, no null: no validity
      ],
      rowGroups: [3500, 2500],
      pages: (c, g) => (g === 0 ? [{ rows: 1000, kind: 'v1' }, { rows: 1000, kind: 'v2' }, { rows: 1500, kind: 'v1' }] : [{ rows: 1000, kind: 'v2' }, { rows: 1500, kind: 'v1' }]),
    });
    const { createWorkerPool } = await import('../../../js/worker/index.js');
    const pool = await createWorkerPool({ size: 2 });
    try {
      for (const [what, r] of [['read', await read(bytes)], ['pool', await read(bytes, { pool })], ['view', await readView(bytes)]]) {
        expectColumn(r.columns.late, values, late, 0, n);
        expect(r.columns.late.valid.subarray(0, 4001).every((v) => v === 1)).toBe(true);
        expect([what, r.columns.none.valid]).toEqual([what, null]);
        expectColumn(r.columns.none, values, none, 0, n);
        if (what !== 'view') expect(Object.keys(r.columns.late).sort()).toEqual(['kind', 'type', 'valid', 'values']); // nothing of the reading's own
        r.release?.();
      }
      const part = await read(bytes, { rowStart: 3900, rowEnd: 5600 });
      expectColumn(part.columns.late, values, late, 3900, 5600);
    } finally {
      await pool.terminate();
    }
  });

  test('row ranges across pages, vectors and row groups, with and without an OffsetIndex', async () => {
    for (const offsetIndex of [false, true]) {
      const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], codec: 'SNAPPY', pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0, offsetIndex });
      for (const [a, b] of [[0, 1], [1050, 1200], [1023, 2049], [2400, 4300], [3499, 3501], [5999, 6000], [3000, 3000]]) {
        const r = await read(bytes, { rowStart: a, rowEnd: b, columns: ['d', 'f', 'i'] });
        expect(r.numRows).toBe(b - a);
        expectColumn(r.columns.d, S.d, S.valid, a, b);
        expectColumn(r.columns.f, S.f, S.valid, a, b);
        expect(r.columns.i.values).toEqual(Array.from(S.ints.subarray(a, b)));
      }
    }
  });

  test('with an OffsetIndex a row range fetches only the pages that hold it', async () => {
    const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0, offsetIndex: true });
    const reads = [];
    const source = {
      size: () => bytes.length,
      read: (s, e) => {
        reads.push([s, e]);
        return bytes.slice(s, e);
      },
    };
    const info = await inspect(bytes);
    const chunk = info.rowGroups[1].columns[0]; // column d, row group 1: pages of 700, 1300, 500 rows
    const r = await read(source, { columns: ['d'], rowStart: 3500 + 800, rowEnd: 3500 + 1900 });
    expectColumn(r.columns.d, S.d, S.valid, 4300, 5400);
    const page = chunk.pages[1];
    const pageRange = [page.offset, page.offset + page.headerBytes + page.compressedBytes];
    // the one data read inside the chunk is exactly the page holding rows 700..2000 of the group
    const inChunk = reads.filter(([s, e]) => s >= chunk.offset && e <= chunk.offset + chunk.compressedBytes);
    expect(inChunk).toEqual([pageRange]);
    // and nothing of row group 0
    const g0 = info.rowGroups[0].columns;
    expect(reads.filter(([s]) => s >= g0[0].offset && s < g0[g0.length - 1].offset + g0[g0.length - 1].compressedBytes)).toEqual([]);
  });

  test('inspect: page kinds, encodings, null counts and ALP layouts of a built file', async () => {
    const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], codec: 'GZIP', pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0 });
    const info = await inspect(bytes);
    expect(info.rowGroups.map((g) => g.numRows)).toEqual([3500, 2500]);
    const f0 = info.rowGroups[0].columns[1];
    expect(f0.codec).toBe('GZIP');
    expect(f0.pages.map((p) => [p.type, p.encoding])).toEqual([
      ['dictionary', 'PLAIN'],
      ['data v1', 'RLE_DICTIONARY'],
      ['data v2', 'ALP'],
      ['data v2', 'BYTE_STREAM_SPLIT'],
    ]);
    const nulls = (a, b) => S.valid.subarray(a, b).filter((v) => !v).length;
    expect(f0.pages.slice(1).map((p) => p.numNulls)).toEqual([nulls(0, 1100), nulls(1100, 2500), nulls(2500, 3500)]);
    expect(f0.pages[2].alp).toMatchObject({ layout: 'merged', numElements: 1400 - nulls(1100, 2500) });
    const d1 = info.rowGroups[1].columns[0];
    expect(d1.pages.map((p) => p.alp?.layout)).toEqual([undefined, 'merged', 'draft']);
  });
});

// ------------------------------------------------------------------------------------------------
// Damaged files: each gives a ParquetError naming what and where.
describe('damaged files', () => {
  const base = () => buildParquet({ columns: [{ name: 'd', type: 'DOUBLE', values: S.d, valid: S.valid }], rowGroups: [6000], pages: () => [{ rows: 3000, kind: 'v1' }, { rows: 3000, kind: 'v2' }] });

  async function pagesOf(bytes) {
    return (await inspect(bytes)).rowGroups[0].columns[0].pages;
  }

  async function readError(bytes) {
    const err = await read(bytes).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    if (!(err instanceof NumdecodeError)) throw err;
    return err;
  }

  test('a truncated file', async () => {
    const bytes = base();
    const err = await readError(bytes.subarray(0, bytes.length - 100));
    expect(err).toBeInstanceOf(ParquetError);
    expect(err.code).toBe('ERR_BAD_DATA');
    expect(err.message).toMatch(/footer/);
  });

  test('require() of numdecode/parquet (require(esm)): CODES, and ParquetError answers instanceof for its errors', () => {
    // A child process: the real require() and import(), outside Jest's module registry.
    const file = path.join(corpusRoot, 'parquet-alp/alp_spotify1.parquet');
    const script = `
      const parquet = require(${JSON.stringify(path.join(projectRoot, 'js/parquet.js'))});
      const bytes = require('node:fs').readFileSync(${JSON.stringify(file)});
      parquet.read(bytes.subarray(0, bytes.length - 100)).then(
        () => console.log('no error'),
        (err) => console.log(JSON.stringify([err instanceof parquet.ParquetError, err instanceof parquet.NumdecodeError,
          err.code === parquet.CODES.BAD_DATA, new Error('x') instanceof parquet.ParquetError, err.message])));`;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30000 });
    const [isParquet, isNumdecode, badData, plainIsParquet, message] = JSON.parse(out);
    expect([isParquet, isNumdecode, badData, plainIsParquet]).toEqual([true, true, true, false]);
    expect(message).toMatch(/footer/);
  });

  test('a page size past the column chunk', async () => {
    const bytes = base();
    const pages = await pagesOf(bytes);
    // v1 header: field 3 (compressed_page_size) follows field 2; grow it via the page header bytes
    const h = bytes.subarray(pages[1].offset, pages[1].offset + pages[1].headerBytes);
    const damaged = bytes.slice();
    // the compressed size is a zigzag varint; one of the same length but 500000 larger replaces it
    const old = zigzag(pages[1].compressedBytes);
    const idx = findVarint(h, old, findVarint(h, zigzag(pages[1].uncompressedBytes)) + 1);
    expect(idx).toBeGreaterThan(0);
    const big = zigzag(pages[1].compressedBytes + 500_000);
    expect(big.length).toBe(old.length);
    damaged.set(big, pages[1].offset + idx);
    const err = await readError(damaged);
    expect(err).toBeInstanceOf(ParquetError);
    expect(err).toMatchObject({ code: 'ERR_BAD_DATA', column: 'd', rowGroup: 0, page: 1 });
  });

  test('bad Thrift in a page header', async () => {
    const bytes = base();
    const pages = await pagesOf(bytes);
    const damaged = bytes.slice();
    damaged.fill(0xff, pages[0].offset, pages[0].offset + 6);
    const err = await readError(damaged);
    expect(err).toMatchObject({ code: 'ERR_BAD_DATA', column: 'd', rowGroup: 0, page: 0 });
    expect(err.message).toMatch(/column d, row group 0, page 0/);
  });

  test('definition levels that disagree with the page value count', async () => {
    const bytes = base();
    const pages = await pagesOf(bytes);
    const damaged = bytes.slice();
    // v1 page 0 body: u32 level length, then the runs; the first run header is a varint right after
    const body = pages[0].offset + pages[0].headerBytes;
    damaged[body + 4] = 0x02; // one RLE run of 1 value: the runs end far before 3000 values
    const err = await readError(damaged);
    expect(err).toMatchObject({ code: 'ERR_BAD_DATA', column: 'd', rowGroup: 0, page: 0 });
    expect(err.message).toMatch(/definition levels/);
  });

  test('an ALP payload whose value count disagrees with the page', async () => {
    // REQUIRED column, v2 page, merged layout: the payload starts the page body; its count is the i32 at byte 3
    const values = S.d.slice(0, 3000);
    const bytes = buildParquet({ columns: [{ name: 'x', type: 'DOUBLE', values, required: true }], rowGroups: [3000], pages: () => [{ rows: 3000, kind: 'v2', layout: 'merged' }] });
    const page = (await inspect(bytes)).rowGroups[0].columns[0].pages[0];
    const damaged = bytes.slice();
    new DataView(damaged.buffer).setInt32(page.offset + page.headerBytes + 3, 2999, true);
    const err = await readError(damaged);
    expect(err).toMatchObject({ code: 'ERR_BAD_DATA', column: 'x', rowGroup: 0, page: 0 });
    expect(err.message).toMatch(/ALP payload holds 2999 values but the page has 3000/);
    const err2 = await inspect(damaged).catch((e) => e);
    expect(err2).toMatchObject({ code: 'ERR_BAD_DATA', column: 'x', rowGroup: 0, page: 0 });
  });

  test('a damaged ALP vector', async () => {
    const values = S.d.slice(0, 3000);
    const bytes = buildParquet({ columns: [{ name: 'x', type: 'DOUBLE', values, required: true }], rowGroups: [3000], pages: () => [{ rows: 3000, kind: 'v1', layout: 'draft' }] });
    const page = (await inspect(bytes)).rowGroups[0].columns[0].pages[0];
    const damaged = bytes.slice();
    const payload = page.offset + page.headerBytes;
    // vector 1's offset (draft: offsets start at byte 8) pointed past the page
    new DataView(damaged.buffer).setUint32(payload + 8 + 4, 1e7, true);
    const err = await readError(damaged);
    expect(err).toMatchObject({ code: 'ERR_BAD_DATA', column: 'x', rowGroup: 0, page: 0 });
    expect(err.message).toMatch(/ALP decoding failed/);
  });

  test('an unknown column name is a RangeError listing the columns', async () => {
    await expect(read(base(), { columns: ['nope'] })).rejects.toThrow(/no column "nope".*columns: d/);
    await expect(read(base(), { rowStart: 10, rowEnd: 6001 })).rejects.toThrow(RangeError);
  });
});

function zigzag(n) {
  let v = n * 2;
  const out = [];
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Uint8Array.from(out);
}

function findVarint(h, needle, from = 0) {
  for (let i = from; i + needle.length <= h.length; i++) if (needle.every((b, k) => h[i + k] === b)) return i;
  return -1;
}

describe('readPages (pages for a decoder elsewhere)', () => {
  test('ALP pages as payloads alp.decode reads, other pages decoded, validity per page', async () => {
    const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], codec: 'ZSTD', pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0 });
    for (const [name, values] of [['d', S.d], ['f', S.f]]) {
      const { dtype, pages } = await readPages(bytes, { column: name });
      expect(dtype).toBe(name === 'd' ? 'f64' : 'f32');
      expect(pages.map((p) => p.numRows)).toEqual([1100, 1400, 1000, 700, 1300, 500]);
      for (const p of pages) {
        const want = expectedSlice(values, S.valid, p.rowStart, p.rowStart + p.numRows);
        let got = p.values;
        if (p.alp) {
          expect(p.encoding).toBe('ALP');
          const dense = alp.decode(p.alp, dtype);
          got = new want.constructor(p.numRows);
          const w = dtype === 'f32' ? 1 : 2;
          const to = new Uint32Array(got.buffer);
          const from = new Uint32Array(dense.buffer, dense.byteOffset, dense.length * w);
          let j = 0; // the next dense (non-null) value
          for (let r = 0; r < p.numRows; r++) {
            if (p.valid && !p.valid[r]) continue;
            for (let k = 0; k < w; k++) to[r * w + k] = from[j * w + k];
            j++;
          }
          expect(j).toBe(dense.length);
        }
        expectSameBits(got, want, `${name} page ${p.rowGroup}/${p.page}`);
        expect(p.valid ? Array.from(p.valid) : null).toEqual(S.valid.subarray(p.rowStart, p.rowStart + p.numRows).includes(0) ? Array.from(S.valid.subarray(p.rowStart, p.rowStart + p.numRows)) : null);
      }
    }
  });
});

// ------------------------------------------------------------------------------------------------
// Round trips, outputs in the caller's arrays, a worker pool, empty row groups, struct leaves.
describe('round trips (issue 27): counted as waves of requests by the test server', () => {
  let server;
  beforeAll(async () => {
    server = await startServer();
    server.delay = 40; // every answer waits: requests sent together arrive in one wave
  });
  afterAll(() => server.close());

  const built = () => buildParquet({ columns: columnsSpec(false), rowGroups: [2000, 2000, 2000], codec: 'ZSTD', pages: () => [{ rows: 1000 }, { rows: 1000, kind: 'v2' }] });

  test('one column from nothing: the tail (size and footer) in one wave, its chunks in the next', async () => {
    const bytes = built();
    server.handler = (req, res) => serveRange(req, res, bytes);
    const r = await read(`${server.base}/f.parquet`, { columns: ['d'] });
    expectColumn(r.columns.d, S.d, S.valid);
    expect(server.state.waves).toBeLessThanOrEqual(2);
    const ranges = server.state.log.map((l) => [l.method, l.range]);
    expect(ranges[0]).toEqual(['GET', 'bytes=-16384']); // no HEAD, no probe of byte 0
    expect(ranges.every(([method, range]) => method === 'GET' && range !== null)).toBe(true);
    expect(r.stats.bytes).toBeLessThan(bytes.length);
  });

  test('every FLOAT / DOUBLE column of a file: still two waves', async () => {
    const bytes = built();
    server.handler = (req, res) => serveRange(req, res, bytes);
    const r = await read(`${server.base}/f.parquet`, { columns: ['d', 'f'] });
    expectColumn(r.columns.d, S.d, S.valid);
    expectColumn(r.columns.f, S.f, S.valid);
    expect(server.state.waves).toBeLessThanOrEqual(2);
  });
});

describe('outputs, pools and shapes', () => {
  test('options.into: the values land in the caller\'s arrays, bit-exactly; a wrong array is refused before any read', async () => {
    const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], codec: 'SNAPPY', pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0 });
    const d = new Float64Array(N + 10).fill(7);
    const f = new Float32Array(N).fill(7);
    const r = await read(bytes, { columns: ['d', 'f'], into: { d, f } });
    expect(r.columns.d.values.buffer).toBe(d.buffer);
    expect(r.columns.f.values.buffer).toBe(f.buffer);
    expectColumn(r.columns.d, S.d, S.valid);
    expectColumn(r.columns.f, S.f, S.valid);
    expect(d[N]).toBe(7); // nothing past the rows read
    const part = await read(bytes, { columns: ['d'], rowStart: 1000, rowEnd: 4000, into: { d } });
    expectColumn(part.columns.d, S.d, S.valid, 1000, 4000);
    await expect(read(bytes, { columns: ['d'], into: { d: new Float32Array(N) } })).rejects.toThrow(TypeError);
    await expect(read(bytes, { columns: ['d'], into: { d: new Float64Array(10) } })).rejects.toThrow(/room for 10 values/);
    await expect(read(bytes, { columns: ['d'], into: { f } })).rejects.toThrow(/not a selected FLOAT/);
  });

  test('options.into {values, valid}: the validity lands in the caller\'s array too, stale contents overwritten, in one thread and in workers; a wrong one is refused', async () => {
    const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], codec: 'SNAPPY', pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0 });
    expect(S.valid.includes(0)).toBe(true);
    const { createWorkerPool } = await import('../../../js/worker/index.js');
    const pool = await createWorkerPool({ size: 2 });
    try {
      const plain = () => ({ values: new Float64Array(N + 3).fill(7), valid: new Uint8Array(N + 3).fill(9) });
      const shared = () => ({ values: new Float64Array(new SharedArrayBuffer(8 * N)).fill(7), valid: new Uint8Array(new SharedArrayBuffer(N)).fill(9) });
      const mixed = () => ({ values: shared().values, valid: plain().valid }); // the validity copied into, the values not
      for (const [what, make, options] of [
        ['one thread', plain, {}],
        ['workers, shared arrays', shared, { pool }],
        ['workers, arrays copied into', plain, { pool }],
        ['workers, shared values and a plain validity', mixed, { pool }],
      ]) {
        const d = make();
        const r = await read(bytes, { columns: ['d'], into: { d }, ...options });
        expect([what, r.columns.d.values.buffer === d.values.buffer, r.columns.d.valid.buffer === d.valid.buffer]).toEqual([what, true, true]);
        expectColumn(r.columns.d, S.d, S.valid);
        if (d.valid.length > N) expect(d.valid[N]).toBe(9); // nothing past the rows read
        // read again into the same arrays, a range: the earlier nulls do not linger
        d.valid.fill(0);
        const part = await read(bytes, { columns: ['d'], rowStart: 1000, rowEnd: 4000, into: { d }, ...options });
        expectColumn(part.columns.d, S.d, S.valid, 1000, 4000);
      }
      // From bytes with an OffsetIndex, a range's partial row groups are read on this thread (the
      // workers get whole chunks): those rows of a shared validity are overwritten too, also
      // where no page has a null to write (a REQUIRED column's: all present).
      const indexed = buildParquet({ columns: columnsSpec(true), rowGroups: [3500, 2500], codec: 'SNAPPY', pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0, offsetIndex: true });
      for (const column of ['d', 'f']) {
        const out = shared();
        out.valid.fill(0);
        const values = column === 'f' ? new Float32Array(new SharedArrayBuffer(4 * N)) : out.values;
        const got = (await read(indexed, { columns: [column], rowStart: 1000, rowEnd: 4000, into: { [column]: { values, valid: out.valid } }, pool })).columns[column];
        if (column === 'd') expectColumn(got, S.d, S.valid, 1000, 4000);
        else expect([got.valid, out.valid.subarray(0, 3000).every((v) => v === 1)]).toEqual([null, true]);
      }
      // and an OPTIONAL column without a null in the range: its pages write no validity at all
      const g = Float64Array.from({ length: N }, (_, i) => i / 8);
      const noNulls = buildParquet({ columns: [{ name: 'g', type: 'DOUBLE', values: g, valid: new Uint8Array(N).fill(1) }], rowGroups: [3500, 2500], pages: mixedPages, offsetIndex: true });
      for (const [rowStart, rowEnd] of [[1000, 4000], [0, N]]) {
        // (the whole file: each worker fills its chunks' rows)
        const out = shared();
        out.valid.fill(0);
        const got = (await read(noNulls, { columns: ['g'], rowStart, rowEnd, into: { g: out }, pool })).columns.g;
        const rows = rowEnd - rowStart;
        expect([got.valid, out.valid.subarray(0, rows).every((v) => v === 1), got.values.subarray(0, rows)]).toEqual([null, true, g.subarray(rowStart, rowEnd)]);
      }
    } finally {
      await pool.terminate();
    }
    // A REQUIRED column's validity given: all present, and the result's valid is null as without it.
    const req = buildParquet({ columns: columnsSpec(true), rowGroups: [6000] });
    const valid = new Uint8Array(N);
    const r = await read(req, { columns: ['f'], into: { f: { valid } } });
    expect(r.columns.f.valid).toBeNull();
    expect(valid.every((v) => v === 1)).toBe(true);
    await expect(read(bytes, { columns: ['d'], into: { d: { valid: new Uint16Array(N) } } })).rejects.toThrow(/valid must be a Uint8Array/);
    await expect(read(bytes, { columns: ['d'], into: { d: { valid: new Uint8Array(5) } } })).rejects.toThrow(/valid has room for 5 rows/);
    await expect(read(bytes, { columns: ['d'], into: { d: { values: new Float64Array(N), nulls: 1 } } })).rejects.toThrow(TypeError);
  });

  test('options.maxOutputBytes: a read whose FLOAT / DOUBLE values would be more bytes is refused before any column chunk is read', async () => {
    const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0 });
    const reads = [];
    const source = { size: () => bytes.length, read: (s, e) => (reads.push(s), bytes.subarray(s, e)) };
    const err = await read(source, { columns: ['d', 'f'], maxOutputBytes: N * 12 - 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(ParquetError);
    expect(err).toMatchObject({ code: 'ERR_OUTPUT_LIMIT', column: 'd' });
    expect(err.message).toMatch(/6000 rows of d, f are 72000 bytes of values, over maxOutputBytes=71999/);
    expect(reads).toHaveLength(1); // the footer's tail only
    // at the limit, and for fewer rows, it reads
    expectColumn((await read(bytes, { columns: ['d', 'f'], maxOutputBytes: N * 12 })).columns.f, S.f, S.valid);
    expect((await read(bytes, { columns: ['d'], rowEnd: 10, maxOutputBytes: 80 })).numRows).toBe(10);
    const file = await open(bytes);
    await expect(file.readView({ columns: ['d'], maxOutputBytes: 8 })).rejects.toMatchObject({ code: 'ERR_OUTPUT_LIMIT' });
    await expect(file.read({ maxOutputBytes: -1 })).rejects.toThrow(TypeError);
    file.close();
    // rows no memory can hold (a footer may claim any count: a run of nulls costs a few bytes) are named, not V8's bare RangeError
    const { outputFor } = await import('../../../js/parquet/float-column.js');
    const huge = (() => {
      try {
        return outputFor({ name: 'd', type: 'DOUBLE', maxDef: 1 }, 2 ** 40, {}, 'claims.parquet');
      } catch (e) {
        return e;
      }
    })();
    expect(huge).toBeInstanceOf(ParquetError);
    expect(huge).toMatchObject({ code: 'ERR_OUTPUT_LIMIT', file: 'claims.parquet', column: 'd' });
    expect(huge.message).toMatch(/out of memory for 8796093022208 bytes of output/);
  });

  test('options.pool: row groups x columns decode in workers, bit-exactly, from a path and from bytes', async () => {
    const { createWorkerPool } = await import('../../../js/worker/index.js');
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], codec: 'ZSTD', pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0, offsetIndex: true });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-pq-'));
    const file = path.join(dir, 'f.parquet');
    writeFileSync(file, bytes);
    const pool = await createWorkerPool({ size: 2 });
    try {
      for (const input of [file, bytes]) {
        const r = await read(input, { columns: ['d', 'f'], pool });
        expectColumn(r.columns.d, S.d, S.valid);
        expectColumn(r.columns.f, S.f, S.valid);
        const part = await read(input, { columns: ['d'], rowStart: 3000, rowEnd: 5000, pool });
        expectColumn(part.columns.d, S.d, S.valid, 3000, 5000);
      }
      expect(pool.stats().completed).toBeGreaterThanOrEqual(4);
      // a damaged page fails in the worker with its place named
      const damaged = bytes.slice();
      const page = (await inspect(bytes)).rowGroups[1].columns[0].pages[0];
      damaged.fill(0xff, page.offset, page.offset + 6);
      const err = await read(damaged, { columns: ['d', 'f'], pool }).catch((e) => e);
      expect(err).toBeInstanceOf(ParquetError);
      expect(err).toMatchObject({ code: 'ERR_BAD_DATA', column: 'd', rowGroup: 1, page: 0 });
    } finally {
      await pool.terminate();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a 0-row row group (parquet-cpp writes one for an empty table: chunks at offset 0, size 0) reads as no rows', async () => {
    const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [0] });
    const { metadata } = await (await import('hyparquet')).parquetMetadataAsync(bytes.slice().buffer).then((m) => ({ metadata: m }));
    expect(metadata.row_groups[0].columns[0].meta_data.total_compressed_size).toBe(0n);
    const r = await read(bytes);
    expect(r.numRows).toBe(0);
    expect(r.columns.d.values).toEqual(new Float64Array(0));
    expect(r.columns.f.values).toEqual(new Float32Array(0));
    const info = await inspect(bytes);
    expect(info.rowGroups[0].columns.map((c) => c.pages)).toEqual([[], [], []]);
    // and beside a group with rows
    const two = buildParquet({ columns: columnsSpec(false), rowGroups: [0, N] });
    expectColumn((await read(two)).columns.d, S.d, S.valid);
  });

  test('FLOAT / DOUBLE leaves inside a struct read as "struct.leaf", null where the struct or the leaf is null', async () => {
    const n = 3000;
    const x = new Float64Array(n);
    const y = new Float32Array(n);
    const def = new Uint8Array(n); // 0: struct null, 1: leaf null, 2: present
    for (let i = 0; i < n; i++) {
      def[i] = i % 13 === 0 ? 0 : i % 7 === 0 ? 1 : 2;
      x[i] = def[i] === 2 ? Math.round(i * 1.37) / 100 : 0;
      y[i] = def[i] === 2 ? Math.fround(i / 4) : 0;
    }
    const bytes = buildStructParquet({ name: 'point', def, leaves: [{ name: 'x', type: 'DOUBLE', values: x }, { name: 'y', type: 'FLOAT', values: y }] });
    const r = await read(bytes, { columns: ['point.x', 'point.y'] });
    const valid = Uint8Array.from(def, (d) => (d === 2 ? 1 : 0));
    expectSameBits(r.columns['point.x'].values, x, 'point.x');
    expectSameBits(r.columns['point.y'].values, y, 'point.y');
    expect(Array.from(r.columns['point.x'].valid)).toEqual(Array.from(valid));
    const part = await read(bytes, { columns: ['point.y'], rowStart: 100, rowEnd: 2100 });
    expectSameBits(part.columns['point.y'].values, y.slice(100, 2100), 'point.y rows 100..2100');
    await expect(read(bytes, { columns: ['point.z'] })).rejects.toThrow(/columns: point, point\.x, point\.y/);
  });

  test('a FLOAT / DOUBLE leaf inside a list reads as values per element, offsets per row: null lists, empty lists, null elements', async () => {
    const rows = [];
    for (let r = 0; r < 3000; r++) {
      if (r % 11 === 0) rows.push(null);
      else if (r % 7 === 0) rows.push([]);
      else rows.push(Array.from({ length: 1 + (r % 4) }, (_, i) => ((r + i) % 13 === 0 ? null : Math.round((r * 3.7 + i) * 100) / 100)));
    }
    const lists = (c, n) =>
      Array.from({ length: n }, (_, i) =>
        c.rowValid && !c.rowValid[i] ? null : Array.from(c.values.subarray(c.offsets[i], c.offsets[i + 1]), (v, j) => (c.valid && !c.valid[c.offsets[i] + j] ? null : v)),
      );
    // the builder's layout is what a Parquet reader expects: hyparquet reads its PLAIN version as written
    const plain = buildListParquet({ name: 'tags', rows, pageRows: 700, encoding: 'PLAIN' });
    const hy = await parquetReadObjects({ file: plain.slice().buffer });
    expect(hy.map((o) => o.tags ?? null)).toEqual(rows);
    for (const bytes of [plain, buildListParquet({ name: 'tags', rows, pageRows: 700, codec: 'ZSTD' })]) {
      const r = await read(bytes, { columns: ['tags.list.element'] });
      const c = r.columns['tags.list.element'];
      expect(c.values).toBeInstanceOf(Float64Array);
      expect(c.offsets).toHaveLength(3001);
      expect(lists(c, r.numRows)).toEqual(rows);
      const part = await read(bytes, { columns: ['tags.list.element'], rowStart: 650, rowEnd: 1500 });
      expect(lists(part.columns['tags.list.element'], part.numRows)).toEqual(rows.slice(650, 1500));
    }
    // into takes columns of one value per row, not a list's elements
    await expect(read(buildListParquet({ name: 'tags', rows: [[1.5]], pageRows: 1 }), { columns: ['tags.list.element'], into: { 'tags.list.element': new Float64Array(1) } })).rejects.toThrow(RangeError);
  });
});

test('a damaged page header is named by its byte in the file (read, inspect, readPages), not in its column chunk', async () => {
  const bytes = new Uint8Array(readFileSync(path.join(dir, 'alp_spotify1.parquet')));
  const { offset } = (await inspect(bytes, { columns: ['energy'] })).rowGroups[0].columns[0];
  expect(offset).toBeGreaterThan(0);
  const bad = bytes.slice();
  bad.fill(0xff, offset, offset + 13);
  const where = `column energy, row group 0, page 0: page header at byte ${offset} of the file is unreadable`;
  for (const call of [() => read(bad, { columns: ['energy'] }), () => inspect(bad, { columns: ['energy'] }), () => readPages(bad, { column: 'energy' })]) {
    const err = await call().catch((e) => e);
    expect(err).toBeInstanceOf(ParquetError);
    expect(err.message).toContain(where);
    expect(err).toMatchObject({ column: 'energy', rowGroup: 0, page: 0 });
  }
  expect((await read(bytes, { columns: ['energy'] })).columns.energy.values.length).toBe(15000);
});
