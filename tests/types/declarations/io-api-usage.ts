// Compiled (not run) by tests/js/packaging/declarations.test.js: the js/io declarations must type real usage.
import { openDirectory, openFile, IoError, CODES, IO_DEFAULTS } from '../../../js/io/index.js';
import type { IoOptions, IoStats, RangeFile, RangeDirectory, AsyncBufferLike } from '../../../js/io/index.js';

export async function example(signal: AbortSignal, blob: Blob) {
  const options: IoOptions = { retries: 2, timeout: 5000, signal, cacheBytes: 0, gap: 1024, concurrency: 4, retryDelay: 10 };
  const f: RangeFile = openFile('https://example.org/cells.h5', options);
  const kind: 'local' | 'http' | 'blob' | 'buffer' | 'object' = f.kind;
  const size: number = await f.size();
  const head: Uint8Array = await f.read(0, 8, { signal });
  const parts: Uint8Array[] = await f.readRanges([[0, 8], [100, 200]]);
  const cached: Uint8Array | null = f.peek(0, 8);
  const sync: Uint8Array | undefined = f.readSync?.(0, 8);
  const stats: IoStats = f.stats;
  const n: number = stats.requests + stats.bytes + stats.retries + (stats.files[f.name]?.bytes ?? 0);
  f.close();

  const fromBlob = openFile(blob, { name: 'picked file' });
  const fromBytes = openFile(new Float64Array(4));
  const fromObject = openFile({ size: () => 10, read: async (s: number, e: number) => new Uint8Array(e - s) });
  const ab: AsyncBufferLike = { byteLength: 10, slice: (s: number, e?: number) => new ArrayBuffer((e ?? 10) - s) };
  const fromAsyncBuffer = openFile(ab);

  const d: RangeDirectory = openDirectory('https://example.org/matrix/', { maxReadBytes: 1 << 20 });
  const idx: Uint8Array = await d.file('idxptr').read(0, 16);
  const where: string = d.location('idxptr');

  try {
    await fromBlob.read(0, 1);
  } catch (err) {
    if (err instanceof IoError && err.code === CODES.CHANGED) console.log(err.file, err.status);
  }
  return [kind, size, head, parts, cached, sync, n, fromBytes, fromObject, fromAsyncBuffer, idx, where, IO_DEFAULTS.retries];
}
