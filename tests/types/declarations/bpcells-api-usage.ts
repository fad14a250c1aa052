// Compiled (not run) by tests/js/packaging/declarations.test.js: the BPCells declarations must type
// real usage through the package entry point.
import { bpcells } from 'numdecode';
import type { BpcellsMatrix, BpcellsSlice, BpcellsSliceView, BpcellsOpenOptions, BpcellsSourceObject } from 'numdecode';
import type { BpcellsBlock, BpcellsDense, BpcellsProgress } from 'numdecode';

export async function example(signal: AbortSignal) {
  const options: BpcellsOpenOptions = { prefetchBytes: 0, maxReadBytes: 1 << 20, timeout: 5000, signal };
  const m: BpcellsMatrix = await bpcells.open('https://example.org/matrix/', options);
  const [nrow, ncol]: [number, number] = m.shape;
  const order: 'col' | 'row' = m.storageOrder;
  const slice: BpcellsSlice = await m.read(0, 10);
  const first: number = slice.idxptr[0] + slice.index[0] + nrow + ncol + m.nnz;
  const names: string[] = await m.rowNames();
  const dense = await m.toDense(0, 2, { maxOutputBytes: 1 << 20 });
  const cells: number = dense.data.length * dense.shape[0] * dense.stride[0];
  const old: BpcellsDense = await m.toDense(0, 2, { maxCells: 1000 });
  // By columns and rows whatever the storage order; the scan reports progress.
  const seen: BpcellsProgress[] = [];
  const columns: BpcellsSlice = await m.readColumns(0, 3, { signal, onProgress: (p) => seen.push(p) });
  const rows: BpcellsSlice = await m.readRows(5, 9, { into: { index: new Uint32Array(100) } });
  const colView: BpcellsSliceView = await m.readColumnsView(0, 3, { onProgress: (p) => void p.unit });
  const rowView = await m.readRowsView();
  const viewLength: number = colView.length + rowView.length;
  colView.release();
  rowView.release();
  let streamed = 0;
  for await (const block of m.blocks({ size: 1000, signal })) {
    const b: BpcellsBlock = block;
    streamed += b.end - b.start + b.index.length + block.val.length;
  }
  // @ts-expect-error: the views take no into
  await m.readRowsView(0, 1, { into: {} });
  void [old, columns.idxptr[1], rows.index, viewLength, streamed];
  const requests: number = m.stats.requests + m.stats.files['index_data'].bytes;

  const files = new Map<string, Uint8Array>();
  const custom: BpcellsSourceObject = {
    size: (name) => files.get(name)?.length,
    read: async (name, start, end) => files.get(name)!.subarray(start, end),
  };
  const other = await bpcells.open(custom);
  if (other.dtype === 'f64') void other;
  try {
    await bpcells.open(new URL('https://example.org/m/'));
  } catch (err) {
    if (err instanceof bpcells.BpcellsError) void err.file;
  }
  // HDF5 groups (write_matrix_hdf5): bytes, Blob or path, a group, list() and close().
  const h5 = await bpcells.open(new Uint8Array(8), { group: 'a/counts', blockSize: 4096 });
  const where: string = h5.group + h5.fileName;
  h5.close();
  const groups = await bpcells.list('counts.h5');
  const firstShape: [number, number] | undefined = groups[0].shape;
  void [where, firstShape];
  // Into the caller's arrays, and a zero-copy view released by `using` or release().
  const index = new Uint32Array(m.nnz);
  const filled: BpcellsSlice = await m.read(0, m.major, { into: { index, idxptr: new Float64Array(m.major + 1) }, signal });
  const fromInto: Uint32Array = filled.index;
  const view: BpcellsSliceView = await m.readView(0, 10, { signal });
  const entries: number = view.nnz + view.index.length + view.val.length + view.idxptr[1] + view.byteLength;
  view.release();
  {
    using scoped = await m.readView();
    void scoped.index;
  }
  const live: number = bpcells.viewStats().live;
  // dtype narrows the matrix, and with it the arrays it reads into: no cast.
  const counts = await bpcells.open('m/');
  if (counts.dtype === 'u32') {
    const u32: BpcellsMatrix<'u32'> = counts;
    const values: Uint32Array = (await counts.read(0, 1, { into: { val: new Uint32Array(8) } })).val;
    // @ts-expect-error: a u32 matrix's values go into a Uint32Array
    await counts.read(0, 1, { into: { val: new Float64Array(8) } });
    void u32, values;
  } else if (counts.dtype === 'f64') {
    const values: Float64Array = (await counts.read()).val;
    void values;
  }
  // @ts-expect-error: readView takes no into
  await m.readView(0, 1, { into: {} });
  void [fromInto, entries, live];
  // @ts-expect-error: storage order is 'col' | 'row'
  const bad: 'csc' = m.storageOrder;
  return [order, first, names, cells, requests, bad];
}
