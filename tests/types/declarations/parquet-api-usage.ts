// Compiled (not run) by tests/js/packaging/declarations.test.js: js/parquet.d.ts and js/parquet.d.cts must
// type real usage through the package entries "numdecode/parquet" (ESM) and its require() form.
import { read, readView, inspect, readPages, open, ParquetError } from 'numdecode/parquet';
import type { ParquetReadResult, ParquetReadViewResult, ParquetFloatColumnView, ParquetFileInfo, ParquetColumn, ParquetColumnPage, ParquetFile, ParquetStats } from 'numdecode/parquet';
import type { WorkerPool } from 'numdecode/worker';

export async function example(bytes: Uint8Array, blob: Blob, signal: AbortSignal) {
  const r: ParquetReadResult = await read('https://example.org/x.parquet', {
    columns: ['a', 'b'],
    rowStart: 10,
    rowEnd: 20,
    timeout: 5000,
    signal,
    headers: { authorization: 'Bearer x' },
    maxReadBytes: 1 << 20,
  });
  const n: number = r.numRows;
  const a: ParquetColumn = r.columns.a;
  // kind, then type, narrow values: no cast.
  if (a.kind === 'float') {
    const present: Uint8Array | null = a.valid;
    if (a.type === 'DOUBLE') {
      const v: Float64Array = a.values;
      void v;
    } else {
      const v: Float32Array = a.values;
      void v;
    }
    void present;
  } else if (a.kind === 'other') {
    const rows: unknown[] = a.values;
    const type: string = a.type;
    void rows, type;
  }
  const requests: number = r.stats.requests;
  const roundTrips: number = r.stats.roundTrips;
  await read(bytes);
  await read(blob, { columns: ['c'] });
  const price = new Float64Array(1000);
  const pool = null as unknown as WorkerPool;
  await read('data.parquet', { columns: ['price', 'point.x'], into: { price }, pool });
  await read('data.parquet', { columns: ['price'], into: { price: { values: price, valid: new Uint8Array(10) } } });
  const tags = (await read('data.parquet', { columns: ['tags.list.element'] })).columns['tags.list.element'];
  if (tags.kind === 'list') {
    const first: Float32Array | Float64Array = tags.values.subarray(tags.offsets[0], tags.offsets[1]);
    if (tags.type === 'FLOAT') {
      const f: Float32Array = tags.values;
      void f;
    }
    const nullList: boolean = tags.rowValid !== null && tags.rowValid[0] === 0;
    void first, nullList;
  }
  await read({ byteLength: 10, slice: async (s: number, e?: number) => new ArrayBuffer((e ?? 10) - s) });
  await read({ size: () => 10, read: (s: number, e: number) => new Uint8Array(e - s) });

  // The zero-copy style: FLOAT / DOUBLE columns as views in wasm memory.
  const view: ParquetReadViewResult = await readView('data.parquet', { columns: ['price'], rowStart: 0, signal });
  const priceView: ParquetFloatColumnView = view.columns.price;
  if (priceView.type === 'DOUBLE') {
    const v: Float64Array = priceView.values;
    const d: 'f64' = priceView.dtype;
    void v, d;
  }
  const bytesHeld: number = priceView.byteLength + view.stats.bytes;
  priceView.release();
  view.release();
  // @ts-expect-error: a view's memory is the module's: no caller's arrays
  await readView('data.parquet', { into: { price } });
  void bytesHeld;

  const info: ParquetFileInfo = await inspect(new URL('https://example.org/x.parquet'));
  const page = info.rowGroups[0].columns[0].pages[0];
  const kind: 'dictionary' | 'data v1' | 'data v2' | 'index' = page.type;
  const vectors: number | undefined = page.alp?.numVectors;
  const layout: 'draft' | 'merged' | undefined = page.alp?.layout;

  const { dtype, pages } = await readPages(bytes, { column: 'a', rowStart: 0 });
  const first: ParquetColumnPage = pages[0];
  const payload: Uint8Array | undefined = first.alp;
  const d: 'f32' | 'f64' = dtype;

  // One footer read, several reads after it.
  const file: ParquetFile = await open('https://example.org/x.parquet', { timeout: 5000 });
  const names: string[] = file.columns;
  const groups: number = file.rowGroups.length;
  const codec: string = file.rowGroups[0].columns[0].codec;
  const part = await file.read({ columns: [names[0]], rowStart: 0, rowEnd: file.numRows, signal });
  (await file.readView({ columns: [names[0]], signal })).release();
  const since: ParquetStats = file.stats;
  const pageCount: number = (await file.inspect()).rowGroups[0].columns[0].pages.length;
  const cached = await file.readPages({ column: names[0], rowEnd: 100 });
  const cachedPage: Uint8Array | undefined = cached.pages[0].alp;
  const pagesFetched: number = cached.stats.requests;
  // @ts-expect-error: where to read from was given to open()
  await file.readPages({ column: names[0], timeout: 5 });
  file.close();
  void groups, codec, part, since, pageCount, roundTrips, cachedPage, pagesFetched;

  try {
    await read('x.parquet');
  } catch (err) {
    if (err instanceof ParquetError) {
      const where: [string | undefined, number | undefined, number | undefined] = [err.column, err.rowGroup, err.page];
      const code: string = err.code;
      void where, code;
    }
  }
  return { n, requests, kind, vectors, layout, payload, d };
}
