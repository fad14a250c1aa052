// Memory of a read (issues 31, 32): the Pco module decodes one chunk at a time and the output lives in
// JS, so a whole-array read grows the module's memory by a few chunks at most, however large the
// output (wasm memory only grows: a read that decoded into it would keep the output's size for the
// session). In a file of its own: the module here is freshly loaded.
import { expect, test } from '@jest/globals';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init } from '../../../js/index.js';
import { getModule } from '../../../js/wasm/load.js';
import { LocalStore, read } from '../../../js/zarr.js';
import { corpusRoot } from '../helpers/corpus.js';

const stores = path.join(corpusRoot, 'zarr-pcodec', 'stores');

test('whole-array reads grow the Pco module by at most 4 MB, far less than their outputs', async () => {
  await init({ formats: ['pco'] });
  const memory = () => getModule('pco').HEAPU8.length;
  const before = memory();
  let outputs = 0;
  for (const [store, name] of [['era5_like_v3.zarr', 't2m'], ['era5_like_v3.zarr', 'tp'], ['era5_like_v2.zarr', 'tp'], ['sharded_v3.zarr', 'counts'], ['sharded_v3.zarr', 'labels_index_start']]) {
    const arr = await zarr.open(zarr.root(new LocalStore(path.join(stores, store))).resolve(name), { kind: 'array' });
    const { data } = await read(arr);
    outputs += data.byteLength;
  }
  expect(outputs).toBe(28834688); // 6.3 MB t2m, 6.3 MB tp twice, 8.4 MB counts, 1.7 MB labels
  expect(memory() - before).toBeLessThanOrEqual(4 * 1024 * 1024);
});
