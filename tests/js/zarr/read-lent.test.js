// A read from a local folder on this thread (issue 31): pcodec chunks are lent from LocalStore's one
// reused buffer (readView), consumed before the next is read, instead of a fresh array per chunk
// (t2m's 1920 small chunks left ~6 MB of garbage over the output in bench/memory-reads.mjs).
import { expect, test } from '@jest/globals';
import path from 'node:path';
import * as zarr from 'zarrita';
import { init } from '../../../js/index.js';
import { LocalStore, read } from '../../../js/zarr.js';
import { corpusRoot } from '../helpers/corpus.js';

const store = path.join(corpusRoot, 'zarr-pcodec', 'stores', 'era5_like_v3.zarr');

// LocalStore counting its reads by kind.
class CountingStore extends LocalStore {
  gets = [];
  views = 0;
  get(key, options) {
    this.gets.push(key);
    return super.get(key, options);
  }
  readView(key) {
    this.views++;
    return super.readView(key);
  }
}

test.each(['t2m', 'tp'])('%s: every chunk is lent, none copied out, and the values are zarrita\'s', async (name) => {
  await init({ formats: ['pco'] });
  const { registerPcodec } = await import('../../../js/zarr.js');
  registerPcodec(zarr.registry);
  const counting = new CountingStore(store);
  const arr = await zarr.open.v3(zarr.root(counting).resolve(name), { kind: 'array' });
  const ours = await read(arr);
  const chunks = arr.shape.reduce((n, s, d) => n * Math.ceil(s / arr.chunks[d]), 1);
  expect(counting.views).toBe(chunks); // missing chunks are asked for too (and are undefined)
  expect(counting.gets.filter((key) => !/(zarr\.json|\.zarray|\.zattrs|\.zgroup)$/.test(key))).toEqual([]); // metadata only
  const theirs = await zarr.get(await zarr.open.v3(zarr.root(new LocalStore(store)).resolve(name), { kind: 'array' }));
  expect(ours.shape).toEqual(theirs.shape);
  expect(new Uint8Array(ours.data.buffer)).toEqual(new Uint8Array(theirs.data.buffer, theirs.data.byteOffset, theirs.data.byteLength));
});
