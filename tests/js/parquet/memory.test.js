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

// zstddec loads its wasm with fetch('data:...') wherever fetch exists: in Node that loads undici,
// Node's fetch (~10 MB of RSS and 65 ms in a fresh process). codecs.js hides fetch from it there.
// Checked in a fresh process, where nothing else has loaded undici yet.
test('ZSTD: loading the decompressor in Node leaves Node\'s fetch unloaded and in place', async () => {
  const { spawnSync } = await import('node:child_process');
  const codecs = new URL('../../../js/parquet/codecs.js', import.meta.url).href;
  const build = new URL('./parquet-build.js', import.meta.url).href;
  const script = `
    const before = globalThis.fetch;
    const { loadCodec } = await import(${JSON.stringify(codecs)});
    const { compress } = await import(${JSON.stringify(build)});
    const inflate = await loadCodec('ZSTD');
    const page = Uint8Array.from({ length: 5000 }, (_, i) => (i * 11) % 251);
    const same = Buffer.from(inflate(compress('ZSTD', page), page.length)).equals(Buffer.from(page));
    const undici = process.moduleLoadList.filter((m) => m.includes('undici'));
    process.stdout.write(JSON.stringify({ same, undici, fetchKept: globalThis.fetch === before && typeof fetch === 'function' }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({ same: true, undici: [], fetchKept: true });
});
