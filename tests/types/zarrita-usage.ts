// Compiled (not run) by `tsc -p tests/types/tsconfig.zarrita.json`: numdecode/zarr against
// zarrita's real types (its registry, open, get).
import * as zarr from 'zarrita';
import { LocalStore, httpStore, openArray, read as numdecodeRead, readView, registerPcodec } from 'numdecode/zarr';
import { createWorkerPool } from 'numdecode/worker';

export async function read(url: string) {
  const registry: typeof zarr.registry = registerPcodec(zarr.registry);
  registerPcodec(zarr.registry, { pool: await createWorkerPool() });
  const arr = await zarr.open(new zarr.FetchStore(url), { kind: 'array' });
  const region = await zarr.get(arr, [zarr.slice(0, 10), null]);
  return { registry, region };
}

// numdecode's own read of a zarrita array: zarrita's selections and result shape.
export async function readWithNumdecode(url: string, signal: AbortSignal) {
  const arr = await zarr.open(new zarr.FetchStore(url), { kind: 'array' });
  const pool = await createWorkerPool({ size: 2 });
  const { data, shape, stride } = await numdecodeRead(arr, {
    selection: [0, null, zarr.slice(10, 20, 2)],
    pool,
    signal,
    onProgress: ({ chunks, totalChunks, bytes }) => console.log(chunks, totalChunks, bytes),
  });
  const whole = await numdecodeRead(arr, { workers: 2, concurrency: 8 });
  return { data, shape, stride, whole: whole.data.byteLength };
}

// A URL through numdecode's I/O layer: a store zarrita opens, or openArray() with I/O options.
export async function readOverHttp(url: string) {
  const store = await httpStore(url, { timeout: 10000, retries: 5, headers: { Authorization: 'Bearer x' } });
  const arr = await zarr.open(zarr.root(store).resolve('t2m'), { kind: 'array' });
  const requests: number = store.stats.requests;
  const opened = await openArray(url, '/t2m', { timeout: 5000, maxReadBytes: 1e9 });
  // @ts-expect-error: a store's requests are not stopped by one signal; pass it to each call
  await httpStore(url, { signal: new AbortController().signal });
  return { shape: (await numdecodeRead(arr)).shape, requests, opened: opened.shape };
}

// A local folder in Node, read through zarrita with numdecode's LocalStore.
export async function readLocal(dir: string) {
  const arr = await zarr.open(zarr.root(new LocalStore(dir)).resolve('t2m'), { kind: 'array' });
  const lean = new LocalStore(dir, { readAhead: false }); // no reader thread
  const ahead: boolean = lean.readAhead;
  return { shape: (await numdecodeRead(arr)).shape, ahead };
}

// The zero-copy style: a view in wasm memory, released by `using` (or release()).
export async function readAsView(dir: string, signal: AbortSignal) {
  const arr = await zarr.open(zarr.root(new LocalStore(dir)).resolve('t2m'), { kind: 'array' });
  using view = await readView(arr, { selection: [0, null, null], signal });
  const sum = (view.data as Float32Array).reduce((a, b) => a + b, 0);
  const facts: [string, number, number, number[], number[]] = [view.dtype, view.length, view.byteLength, view.shape, view.stride];
  // @ts-expect-error: a view lives in this thread's wasm memory: no workers
  await readView(arr, { workers: 2 });
  return { sum, facts, released: view.released };
}
