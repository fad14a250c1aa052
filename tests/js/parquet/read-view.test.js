// numdecode/parquet readView(): the zero-copy output style of a Parquet read. Every FLOAT / DOUBLE
// column comes out as a view of the ALP module's memory holding exactly what the writer wrote (the
// parquet-cpp corpus' CSVs; the built files' own values), also when the module's memory grows in
// the middle of the read; failures, aborts and release() give the memory back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { init, releaseMemory, ParquetError } from '../../../js/index.js';
import { inspect, open, read, readView } from '../../../js/parquet.js';
import { getModule } from '../../../js/wasm/load.js';
import { liveViews } from '../../../js/wasm/views.js';
import { startServer, serveRange } from '../helpers/io-test-server.js';
import { buildListParquet, buildParquet, buildStructParquet } from './parquet-build.js';
import { corpusDir as dir, expectedColumns, expectSameBits } from './parquet-expect.js';
import { N, S, columnsSpec, expectColumn, mixedPages } from './parquet-shapes.js';
import { readJson } from '../helpers/corpus.js';

const manifest = readJson(dir, 'manifest.json');
const liveParquetViews = () => liveViews(getModule('alp'))['parquet.readView'] ?? 0;

beforeAll(() => init());

// A view's column checked as read()'s is: values and validity.
function expectViewColumn(view, values, valid, a = 0, b = N) {
  expect(view.values.buffer).toBe(getModule('alp').HEAPU8.buffer); // in wasm memory, not a copy
  expect({ kind: view.kind, length: view.length, byteLength: view.byteLength }).toEqual({ kind: 'float', length: b - a, byteLength: (b - a) * values.BYTES_PER_ELEMENT });
  expectColumn(view, values, valid, a, b);
}

describe('values', () => {
  test.each(manifest.map((m) => [m.file, m]))('%s: every column as a view, bit-exactly against its CSV', async (_f, m) => {
    const isFloat = m.file.includes('float');
    const want = expectedColumns(m.csv, isFloat);
    const r = await readView(path.join(dir, m.file));
    expect(r.numRows).toBe(m.rows);
    expect(Object.keys(r.columns)).toEqual(Object.keys(want));
    for (const [name, values] of Object.entries(want)) {
      const col = r.columns[name];
      expect({ type: col.type, dtype: col.dtype, valid: col.valid }).toEqual({ type: isFloat ? 'FLOAT' : 'DOUBLE', dtype: isFloat ? 'f32' : 'f64', valid: null });
      expectSameBits(col.values, values, `${m.file} ${name}`);
    }
    expect(r.stats.requests).toBeGreaterThan(0);
    r.release();
    expect(liveParquetViews()).toBe(0);
  });

  test.each(['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'ZSTD'])(
    '%s: nulls, v1 + v2 pages, dictionary, PLAIN / BSS beside ALP, two row groups, row ranges, OffsetIndex',
    async (codec) => {
      for (const offsetIndex of [false, true]) {
        const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], codec, pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0, offsetIndex });
        for (const [a, b] of [[0, N], [1050, 1200], [1023, 2049], [2400, 4300], [3499, 3501], [5999, 6000]]) {
          const r = await readView(bytes, { columns: ['d', 'f'], rowStart: a, rowEnd: b });
          expect(r.numRows).toBe(b - a);
          expectViewColumn(r.columns.d, S.d, S.valid, a, b);
          expectViewColumn(r.columns.f, S.f, S.valid, a, b);
          r.release();
        }
      }
      expect(liveParquetViews()).toBe(0);
    },
  );

  test('reads running at the same time (read() and readView(), bytes and slow sources) each get their own values', async () => {
    for (const codec of ['SNAPPY', 'ZSTD']) {
      const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], codec, pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0 });
      let tick = 0;
      const slow = () => ({ size: () => bytes.length, read: async (s, e) => (await new Promise((r) => setTimeout(r, tick++ % 3)), bytes.subarray(s, e)) });
      const columns = ['d', 'f'];
      const calls = [
        read(bytes, { columns }),
        readView(bytes, { columns }),
        read(slow(), { columns }),
        readView(slow(), { columns }),
        read(bytes, { columns, rowStart: 1023, rowEnd: 4300 }),
        readView(slow(), { columns, rowStart: 2400, rowEnd: 6000 }),
      ];
      const ranges = [[0, N], [0, N], [0, N], [0, N], [1023, 4300], [2400, 6000]];
      const results = await Promise.all(calls);
      results.forEach((r, k) => {
        expectColumn(r.columns.d, S.d, S.valid, ...ranges[k]);
        expectColumn(r.columns.f, S.f, S.valid, ...ranges[k]);
        r.release?.();
      });
    }
    expect(liveParquetViews()).toBe(0);
  });

  test('the same from an open file, from bytes a source hands out and over HTTP', async () => {
    const m = manifest.find((x) => x.file === 'alp_spotify1.parquet');
    const file = path.join(dir, m.file);
    const want = expectedColumns(m.csv, false);
    const handle = await open(file);
    const r = await handle.readView({ columns: ['tempo', 'loudness'], rowStart: 1000, rowEnd: 9500 });
    expectSameBits(r.columns.tempo.values, want.tempo.slice(1000, 9500), 'tempo');
    expectSameBits(r.columns.loudness.values, want.loudness.slice(1000, 9500), 'loudness');
    r.release();
    handle.close();
    const data = new Uint8Array(readFileSync(file));
    const fromSource = await readView({ size: () => data.length, read: async (s, e) => data.slice(s, e) }, { columns: ['energy'] });
    expectSameBits(fromSource.columns.energy.values, want.energy, 'energy from a source');
    fromSource.release();
    const server = await startServer();
    try {
      server.handler = (req, res) => serveRange(req, res, data);
      const http = await readView(`${server.base}/${m.file}`, { columns: ['valence'] });
      expectSameBits(http.columns.valence.values, want.valence, 'valence over HTTP');
      expect(http.stats.bytes).toBeLessThan(data.length / 2);
      http.release();
    } finally {
      server.close();
    }
  });

  test("memory growing in the middle of the read (before every ALP page's decoding): the views' values are still exact", async () => {
    // ALP and PLAIN pages with nulls (spread in place after each page's values land) in four row groups
    const n = 200000;
    const d = Float64Array.from({ length: n }, (_, i) => Math.round(Math.cos(i / 13) * 1e7) / 1e3);
    const valid = Uint8Array.from({ length: n }, (_, i) => (i % 101 === 7 ? 0 : 1));
    for (let i = 0; i < n; i++) if (!valid[i]) d[i] = 0;
    const bytes = buildParquet({ columns: [{ name: 'd', type: 'DOUBLE', values: d, valid }], rowGroups: [n / 4, n / 4, n / 4, n / 4], pages: () => [{ rows: n / 8 }, { rows: n / 16, kind: 'v2', encoding: 'PLAIN' }, { rows: n / 16, kind: 'v2' }] });
    const mod = getModule('alp');
    // (Emscripten's export stub replaces itself with the wasm function on its first call: made now)
    (await readView(bytes, { columns: ['d'], rowEnd: 1 })).release();
    const decodeTo = mod._numdecode_alp_decode_to;
    const held = [];
    const before = mod.HEAPU8.length;
    mod._numdecode_alp_decode_to = (...args) => {
      held.push(mod._malloc(4 << 20)); // the module grows now and then: every typed array over it is detached
      return decodeTo(...args);
    };
    try {
      const r = await readView(bytes, { columns: ['d'] });
      expect(held.length).toBe(8); // one per ALP page
      expect(mod.HEAPU8.length).toBeGreaterThan(before); // it did grow
      expectViewColumn(r.columns.d, d, valid, 0, n);
      r.release();
    } finally {
      mod._numdecode_alp_decode_to = decodeTo;
      for (const ptr of held) mod._free(ptr);
    }
  });

  test('leaves inside a struct read as views ("point.x"), null where the struct or the leaf is null', async () => {
    const n = 3000;
    const x = new Float64Array(n);
    const def = Uint8Array.from({ length: n }, (_, i) => (i % 13 === 0 ? 0 : i % 7 === 0 ? 1 : 2)); // struct null, leaf null, present
    for (let i = 0; i < n; i++) x[i] = def[i] === 2 ? Math.round(i * 1.37) / 100 : 0;
    const bytes = buildStructParquet({ name: 'point', def, leaves: [{ name: 'x', type: 'DOUBLE', values: x }] });
    const r = await readView(bytes, { columns: ['point.x'], rowStart: 100, rowEnd: 2100 });
    expectSameBits(r.columns['point.x'].values, x.slice(100, 2100), 'point.x rows 100..2100');
    expect(Array.from(r.columns['point.x'].valid)).toEqual(Array.from(def.subarray(100, 2100), (d) => (d === 2 ? 1 : 0)));
    r.release();
  });

  test('a column named twice is read once (no second view left live)', async () => {
    const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0 });
    const r = await readView(bytes, { columns: ['d', 'f', 'd'] });
    expect(Object.keys(r.columns)).toEqual(['d', 'f']);
    expect(liveParquetViews()).toBe(2);
    expectViewColumn(r.columns.d, S.d, S.valid);
    r.release();
    expect(liveParquetViews()).toBe(0);
    expect(Object.keys((await read(bytes, { columns: ['f', 'f'] })).columns)).toEqual(['f']);
  });

  test('an empty selection: views of no values', async () => {
    const bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0 });
    const r = await readView(bytes, { columns: ['f'], rowStart: 3000, rowEnd: 3000 });
    expect(r.numRows).toBe(0);
    expect(r.columns.f.values).toHaveLength(0);
    expect(r.columns.f.byteLength).toBe(0);
    r.release();
  });
});

describe('release, failures and refusals', () => {
  let bytes;
  beforeAll(() => {
    bytes = buildParquet({ columns: columnsSpec(false), rowGroups: [3500, 2500], pages: mixedPages, dictionary: (c, g) => c === 1 && g === 0 });
  });

  test('release() frees every column; a released view throws; releaseMemory() waits for live views', async () => {
    const r = await readView(bytes, { columns: ['d', 'f'] });
    expect(liveParquetViews()).toBe(2);
    await expect(releaseMemory({ formats: ['alp'] })).rejects.toMatchObject({ code: 'ERR_IN_USE' });
    r.columns.f.release(); // one column alone
    expect(liveParquetViews()).toBe(1);
    r.release(); // the rest (f again is a no-op)
    expect(liveParquetViews()).toBe(0);
    expect(r.columns.d.released).toBe(true);
    expect(() => r.columns.d.values).toThrow(/released/);
    await expect(releaseMemory({ formats: ['alp'] })).resolves.toBeDefined();
    // Symbol.dispose (what `using` calls) releases too
    if (typeof Symbol.dispose === 'symbol') {
      const view = await readView(bytes, { columns: ['d'] });
      expect(view.columns.d.values[1]).toBe(S.d[1]);
      expect(liveParquetViews()).toBe(1);
      view[Symbol.dispose]();
      expect(liveParquetViews()).toBe(0);
    }
  });

  test('a damaged ALP vector: the error names the column, row group and page, and no view stays live', async () => {
    // two REQUIRED columns, one v1 page each in the draft layout: the payload starts the page body
    const x = S.d.slice(0, 3000).map((v, i) => (S.valid[i] ? v : 2.5));
    const y = S.f.slice(0, 3000).map((v, i) => (S.valid[i] ? v : 1.5));
    const two = buildParquet({
      columns: [{ name: 'x', type: 'DOUBLE', values: x, required: true }, { name: 'y', type: 'FLOAT', values: y, required: true }],
      rowGroups: [3000],
      pages: () => [{ rows: 3000, kind: 'v1', layout: 'draft' }],
    });
    const good = await readView(two);
    expectSameBits(good.columns.x.values, x, 'x');
    expectSameBits(good.columns.y.values, y, 'y');
    good.release();
    const page = (await inspect(two)).rowGroups[0].columns[1].pages[0];
    const damaged = two.slice();
    // vector 1's offset (draft: offsets start at byte 8) pointed past the page
    new DataView(damaged.buffer).setUint32(page.offset + page.headerBytes + 8 + 4, 1e7, true);
    const err = await readView(damaged).catch((e) => e);
    expect(err).toBeInstanceOf(ParquetError);
    expect(err).toMatchObject({ code: 'ERR_BAD_DATA', column: 'y', rowGroup: 0, page: 0 });
    expect(err.message).toMatch(/ALP decoding failed/);
    expect(liveParquetViews()).toBe(0); // x's view too
  });

  test('an abort during the decoding of a local file (no read left to race it) stops it between column chunks, naming the file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-read-view-'));
    const file = path.join(dir, 'mixed.parquet');
    writeFileSync(file, bytes);
    const mod = getModule('alp');
    (await readView(bytes, { columns: ['d'], rowEnd: 1 })).release(); // Emscripten's export stub replaced by the wasm function now
    const decodeTo = mod._numdecode_alp_decode_to;
    try {
      for (const reader of [read, readView]) {
        const controller = new AbortController();
        let calls = 0;
        mod._numdecode_alp_decode_to = (...args) => {
          if (++calls === 1) controller.abort(new Error('user left')); // while the first ALP page decodes
          return decodeTo(...args);
        };
        const err = await reader(file, { columns: ['d', 'f'], signal: controller.signal }).catch((e) => e);
        expect(err).toBeInstanceOf(ParquetError);
        expect(err).toMatchObject({ code: 'ERR_ABORTED', file });
        expect(calls).toBeLessThan(4); // the file's other ALP pages were not decoded
        expect(liveParquetViews()).toBe(0);
      }
    } finally {
      mod._numdecode_alp_decode_to = decodeTo;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an abort while the source has not answered ends read() and readView() at once, naming the file', async () => {
    const footerStart = bytes.length - 8 - new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.length - 8, true);
    for (const reader of [read, readView]) {
      const controller = new AbortController();
      const source = {
        size: () => bytes.length,
        // the footer comes; a column chunk never does
        read: (s, e) => (s < footerStart ? new Promise(() => {}) : bytes.slice(s, e)),
      };
      const pending = reader(source, { columns: ['d', 'f'], signal: controller.signal });
      setTimeout(() => controller.abort(new Error('user left')), 30);
      const err = await pending.catch((e) => e);
      expect(err).toMatchObject({ code: 'ERR_ABORTED', file: expect.any(String) });
      expect(liveParquetViews()).toBe(0);
    }
  });

  test('into and pool are refused; a column that is not FLOAT / DOUBLE is named', async () => {
    await expect(readView(bytes, { into: { d: new Float64Array(N) } })).rejects.toThrow(TypeError);
    await expect(readView(bytes, { pool: {} })).rejects.toThrow(/options.pool is not taken/);
    const err = await readView(bytes).catch((e) => e); // every column: i is INT32
    expect(err).toBeInstanceOf(ParquetError);
    expect(err).toMatchObject({ code: 'ERR_UNSUPPORTED', column: 'i' });
    expect(err.message).toMatch(/column i is not a FLOAT \/ DOUBLE column of one value per row.*read with read\(\)/);
    // read() reads the same file whole
    expect((await read(bytes)).columns.i.values).toHaveLength(N);
    // a DOUBLE leaf inside a list holds values per element, not per row: read() reads it
    const list = buildListParquet({ name: 'tags', rows: [[1.5, 2.5], null, []], pageRows: 3 });
    const listErr = await readView(list, { columns: ['tags.list.element'] }).catch((e) => e);
    expect(listErr).toMatchObject({ code: 'ERR_UNSUPPORTED', column: 'tags.list.element' });
    expect(listErr.message).toMatch(/leaves inside lists .* read with read\(\)/);
    expect(liveParquetViews()).toBe(0);
  });
});
