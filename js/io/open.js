// openFile: turn what the user passed into a RangeFile (directories: directory.js).
import { bytesOf, requireAttached } from '../bytes.js';
import { newContext } from './context.js';
import { HttpBackend } from './http.js';
import { isHttpUrl, localPath } from './location.js';
import { RangeFile } from './range-file.js';
import { BlobBackend, BufferBackend, LocalBackend, ObjectBackend } from './sources.js';

function backendFor(input, ctx) {
  const opts = ctx.options;
  const common = { name: opts.name, stats: ctx.stats };
  if (typeof URL !== 'undefined' && input instanceof URL) input = input.href;
  if (typeof input === 'string') {
    if (isHttpUrl(input)) return new HttpBackend(input, opts, { ...common, shared: ctx.http });
    return new LocalBackend(localPath(input), common);
  }
  if (typeof Blob !== 'undefined' && input instanceof Blob) return new BlobBackend(input, common);
  requireAttached('openFile: the bytes given', input);
  const bytes = bytesOf(input);
  if (bytes !== null) return new BufferBackend(bytes, common);
  if (input && typeof input === 'object') return new ObjectBackend(input, common);
  throw new TypeError(
    `cannot open ${String(input)}: pass a path, an http(s) URL, a Blob/File, an ArrayBuffer or typed array, or a {size, read} object`,
  );
}

/**
 * One file for range reading: a local path (Node), an http(s) URL (string or URL), a Blob/File,
 * an ArrayBuffer or typed array, a {size(), read(start, end)} object or a hyparquet AsyncBuffer.
 */
export function openFile(input, options) {
  const ctx = newContext(options);
  return new RangeFile(backendFor(input, ctx), ctx);
}

/**
 * Opens files one by one that share one context: stats (requests, bytes, round trips), the
 * cache, and the per-origin cap on requests in flight. For a reader that learns its files' names
 * as it goes (a Zarr store's keys: js/zarr/http-store.js); a RangeDirectory where they are plain
 * names in one folder. Its stats keep no per-file tally (`files` stays empty): those names are
 * as many as the chunks read, and a viewer reads for hours.
 * @returns {{open: (input: string) => RangeFile, stats: object}}
 */
export function fileOpener(options) {
  const ctx = newContext(options, { perFile: false });
  return { open: (input) => new RangeFile(backendFor(input, ctx), ctx), stats: ctx.stats };
}
