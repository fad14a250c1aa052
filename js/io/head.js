// readHead: a file's first n bytes (all of a shorter file) and its size from one request. Over
// HTTP that is `Range: bytes=0-(n-1)` (a range with a start: CORS-safelisted, unlike a suffix
// range); the answer's Content-Range gives the size, so a reader that sniffs a file's first
// bytes (the HDF5 signature and superblock) needs no HEAD before it. Where Content-Range is hidden
// (cross-origin without Access-Control-Expose-Headers) a HEAD tells the size afterwards, as before.

/**
 * The first n bytes of `file` (a RangeFile; all of it when shorter) and its size: {size, bytes}.
 * @param {import('./range-file.js').RangeFile} file
 * @param {number} n
 * @param {{signal?: AbortSignal}} [opts]
 */
export async function readHead(file, n, opts = {}) {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`readHead: n must be a positive integer, got ${n}`);
  const backend = file._backend;
  if (backend.kind === 'http' && backend.sizeSync() === null && !backend.whole) {
    // probe: a 206 shorter than asked is the whole file when its Content-Range says so. A short
    // answer whose size is hidden falls back to a HEAD; any other failure (after its retries) is
    // the answer: asking again the other way only doubled the attempts before the same error.
    const bytes = await backend.fetch(0, n, opts.signal, { probe: true }).catch((err) => {
      if (!err.sizeHidden) throw err;
      return null;
    });
    if (bytes !== null) {
      const size = backend.sizeSync() ?? (await file.size(opts));
      if (bytes.length === Math.min(n, size)) {
        file._ctx.cache.put(file._cacheKey(), 0, bytes);
        return { size, bytes };
      }
    }
  }
  const size = await file.size(opts);
  return { size, bytes: await file.read(0, Math.min(size, n), opts) };
}
