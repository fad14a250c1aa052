// A zarrita store over an http(s) URL that reads through numdecode's I/O layer (js/io): requests
// retried (resets, 5xx, 429, cut or short bodies, a wrong Content-Range), a timeout on each, one
// version of each file (its ETag pinned: a file replaced between two reads is ERR_CHANGED), a
// server that ignores Range read once whole, a shard's index and size from one suffix range.
// zarrita's FetchStore does none of this: a 200 answer to a range request was taken as the range
// (a shard's first chunk decoded in place of the one asked for, no error), a stalled server left a
// read waiting for good, and one failed request failed the read. The answers are zarrita's: bytes,
// or undefined for a key that is not there (404, 410).
import { CODES, ZarrError } from '../errors.js';
import { readTail } from '../io/index.js';
import { fileOpener } from '../io/open.js';

// Files kept open (each pins its version); past this the oldest is let go, so a long-lived store
// does not grow with every chunk key it ever read.
const MAX_OPEN_FILES = 4096;

export class HttpStore {
  #files = new Map(); // key -> RangeFile
  #opener;
  #base;

  /**
   * @param {string | URL} url the store's root (a query string, e.g. a presigned URL's, goes with every key)
   * @param {object} [options] the I/O layer's options (docs/io.md): retries, timeout, headers, fetch,
   *   maxReadBytes, concurrency, ...; here cacheBytes defaults to 0 (a read's chunks are not read
   *   twice) and concurrency to 16, as many as read() fetches at once (the I/O layer's 6 per origin
   *   suits a few large ranges; a store's many small chunks over a loopback server read 10-15 %
   *   slower with it, and over a real link, where requests wait on round trips, far slower)
   */
  constructor(url, options = {}) {
    if (typeof URL !== 'undefined' && url instanceof URL) url = url.href;
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) throw new TypeError('zarr HttpStore: pass the store\'s http(s) URL');
    const base = new URL(url);
    base.pathname = `${base.pathname.replace(/\/+$/, '')}/`;
    base.hash = '';
    this.#base = base;
    this.url = url;
    this.#opener = fileOpener({ cacheBytes: 0, concurrency: 16, ...options });
  }

  /** What crossed the wire: {requests, bytes, retries, roundTrips, files}, the I/O layer's stats. */
  get stats() {
    return this.#opener.stats;
  }

  // The URL of a key, refused when it would lie outside the store (a chunk key separator from
  // hostile metadata such as "/../").
  #href(key) {
    const url = new URL(String(key).replace(/^\/+/, ''), this.#base);
    url.search = this.#base.search;
    if (!url.pathname.startsWith(this.#base.pathname)) {
      throw new ZarrError(`zarr HttpStore: the key ${JSON.stringify(key)} points outside ${this.url}`, { code: CODES.BAD_DATA, file: String(key) });
    }
    return url.href;
  }

  #file(key) {
    let file = this.#files.get(key);
    if (file) return file;
    file = this.#opener.open(this.#href(key));
    if (this.#files.size >= MAX_OPEN_FILES) {
      const [oldest, old] = this.#files.entries().next().value;
      this.#files.delete(oldest);
      old.close();
    }
    this.#files.set(key, file);
    return file;
  }

  // A key that is not there reads as undefined (what zarrita expects), and is let go.
  async #orMissing(key, read) {
    try {
      return await read(this.#file(key));
    } catch (err) {
      if (err?.code !== CODES.NOT_FOUND) throw err;
      this.#files.get(key)?.close();
      this.#files.delete(key);
      return undefined;
    }
  }

  /** The whole file of `key` (one GET), or undefined when there is none. */
  get(key, options) {
    return this.#orMissing(key, (file) => file.readAll({ signal: options?.signal }));
  }

  /**
   * {offset, length} or {suffixLength} of the file of `key` (a suffix in one request where the
   * server allows it, else after a HEAD), or undefined when there is none. Exactly the bytes asked
   * for, or an error (a file that ends before them: ERR_BAD_DATA); a suffix longer than the file
   * is the whole file.
   */
  getRange(key, range, options) {
    const signal = options?.signal;
    return this.#orMissing(key, async (file) => {
      if ('suffixLength' in range) return (await readTail(file, range.suffixLength, { signal })).bytes;
      return file.read(range.offset, range.offset + range.length, { signal });
    });
  }
}
