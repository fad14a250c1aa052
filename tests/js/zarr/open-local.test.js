// A local folder opened with openArray() (behind list()'s metadata layers, zarrita's consolidated
// one and the float16 rewrite) is still read as a local folder: its chunks lent to the decoder,
// a pool's workers reading the files themselves. Before, those layers hid the LocalStore and such
// a read took the path of a network store (no lent chunks; with 64 chunks asked for at once).
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init } from '../../../js/index.js';
import { LocalStore, openArray, read, registerPcodec } from '../../../js/zarr.js';
import { localFolderOf } from '../../../js/zarr/local-store.js';
import { createWorkerPool } from '../../../js/worker/index.js';
import { corpusRoot } from '../helpers/corpus.js';

const storesDir = path.join(corpusRoot, 'zarr-pcodec', 'stores');
const CASES = [
  ['era5_like_v3.zarr', '/t2m'], // consolidated v3, 96 chunk files
  ['era5_like_v2.zarr', '/tp'],
  ['sharded_v3.zarr', '/counts'],
];
const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
let pool;

beforeAll(async () => {
  await init({ formats: ['pco'] });
  registerPcodec(zarr.registry);
  pool = await createWorkerPool({ size: 1, init: { formats: ['pco'] } });
});
afterAll(() => pool?.terminate());

describe('openArray() of a local folder reads it as a local folder', () => {
  test.each(CASES)('%s %s: the LocalStore is found behind the layers; chunks lent; a pool exact too', async (store, array) => {
    const dir = path.join(storesDir, store);
    const arr = await openArray(dir, array);
    const local = localFolderOf(arr.store);
    expect(local).toBeInstanceOf(LocalStore);
    expect(local.root).toBe(path.resolve(dir));
    // zarrita's get over its own opening of the folder, with numdecode's codec: the reference.
    const ref = await zarr.get(await zarr.open(zarr.root(new LocalStore(dir)).resolve(array.slice(1)), { kind: 'array' }));
    const lent = jest.spyOn(LocalStore.prototype, array === '/counts' ? 'readInto' : 'readView');
    try {
      expect(bytesOf((await read(arr)).data).equals(bytesOf(ref.data))).toBe(true);
      expect(lent).toHaveBeenCalled(); // the folder's own reads, not the layers' get()
    } finally {
      lent.mockRestore();
    }
    expect(bytesOf((await read(arr, { pool })).data).equals(bytesOf(ref.data))).toBe(true);
  });
});
