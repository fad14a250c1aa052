// A read()'s result against zarrita.get's for the same selection: data, shape, stride and typed
// array class alike, bit for bit (a single value from zarrita stands for an output of shape []).
// Used by tests/js/zarr/read.test.js and read-slabs.test.js.
import { expect } from '@jest/globals';
import { bytesOf, expectSameBytes } from './corpus.js';

export function expectSameAsZarrita(got, want, what) {
  if (typeof want !== 'object') want = { data: new got.data.constructor([want]), shape: [], stride: [] };
  expect({ what, shape: got.shape, stride: got.stride, type: got.data.constructor.name }).toEqual({
    what,
    shape: want.shape,
    stride: want.stride,
    type: want.data.constructor.name,
  });
  expectSameBytes(bytesOf(got.data), bytesOf(want.data), what);
}
