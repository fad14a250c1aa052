// Memory of a Parquet read (issue 31): compressed pages decompress into one reused buffer in their
// decompressor's own wasm memory, not a fresh array per page (a whole read's worth of garbage, held
// until V8 collects it: bench/memory-reads.mjs measured SNAPPY 15 MB over output + 2 x the largest
// chunk before).
import { describe, expect, test } from '@jest/globals';
import { loadCodec } from '../../../js/parquet/codecs.js';
import { compress } from './parquet-build.js';

const bytesOf = (n, seed) => Uint8Array.from({ length: n }, (_, i) => (i * seed) % 251);

describe.each(['SNAPPY', 'ZSTD'])('%s pages', (codec) => {
  test('decompress into one reused buffer, valid until the next page', async () => {
    const inflate = await loadCodec(codec);
    const a = bytesOf(50000, 7);
    const b = bytesOf(30000, 13);
    const first = inflate(compress(codec, a), a.length);
    expect(first).toEqual(a);
    const second = inflate(compress(codec, b), b.length);
    expect(second).toEqual(b);
    expect(second.buffer).toBe(first.buffer); // the same memory, no copy per page
  });
});

test('SNAPPY: a block whose stated length is not the page header\'s is refused before it is written', async () => {
  const inflate = await loadCodec('SNAPPY');
  const a = bytesOf(1000, 3);
  expect(() => inflate(compress('SNAPPY', a), 999)).toThrow('the block holds 1000 bytes, not 999');
  expect(() => inflate(Uint8Array.of(0x80, 0x80), 10)).toThrow('invalid snappy length header');
});
