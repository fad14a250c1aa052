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

// Files read by range kept open (each pins its version between a shard's index and its chunks;
// one a server sent whole instead of a range keeps those bytes for its later ranges): the least
// recently used past this many are let go. A whole file (get) is read with a file of its own, let
// go at once, so no chunk's bytes stay behind.
const MAX_OPEN_FILES = 64;

export class HttpStore {
  #files = new Map(); // key -> RangeFile
  #opener;
  #base;

  /**
   * @param {string | URL} url the store's root (a query string, e.g. a presigned URL's, goes with every key)
   * @param {object} [options] the I/O layer's options (docs/io.md): retries, timeout, headers, fetch,
   *   maxReadBytes, concurrency, ...; cacheBytes defaults to 0 here (a read's chunks are not read
   *   twice). concurrency is the I/O layer's: 64 in Node, 6 per origin where a browser sends the
   *   requests (its own limit over HTTP/1.1; raise it for an HTTP/2 server).
   */
  constructor(url, options = {}) {
    if (typeof URL !== 'undefined' && url instanceof URL) url = url.href;
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) throw new TypeError('zarr HttpStore: pass the store\'s http(s) URL');
    const base = new URL(url);
    base.pathname = `${base.pathname.replace(/\/+$/, '')}/`;
    base.hash = '';
    this.#base = base;
    this.url = url;
    const { name, ...io } = options ?? {}; // each file is named by its own URL
    this.#opener = fileOpener({ cacheBytes: 0, ...io });
  }

  /** What crossed the wire: {requests, bytes, retries, roundTrips}, the I/O layer's stats (`files` stays empty: one name per chunk read would grow for as long as a viewer runs). */
  get stats() {
    return this.#opener.stats;
  }

  // The URL of a key: each segment is a name, encoded as one ("t2m:mean", "a?b" and "c#d" stay
  // names, not a scheme, a query or a fragment); "." and ".." are refused, as a key that would lie
  // outside the store (hostile metadata's chunk key separator "/../").
  #href(key) {
    const segments = String(key).split('/').filter((x) => x !== '');
    if (segments.some((x) => x === '.' || x === '..')) {
      throw new ZarrError(`zarr HttpStore: the key ${JSON.stringify(key)} points outside ${this.url}`, { code: CODES.BAD_DATA, file: String(key) });
    }
    const url = new URL(`./${segments.map(encodeURIComponent).join('/')}`, this.#base);
    url.search = this.#base.search;
    return url.href;
  }

  #file(key) {
    let file = this.#files.get(key);
    if (file) {
      this.#files.delete(key); // to the end: most recently used
    } else {
      file = this.#opener.open(this.#href(key));
      if (this.#files.size >= MAX_OPEN_FILES) {
        const [oldest, old] = this.#files.entries().next().value;
        this.#files.delete(oldest);
        old.close();
      }
    }
    this.#files.set(key, file);
    return file;
  }

  // A key that is not there reads as undefined (what zarrita expects), and is let go.
  static async #orMissing(read, letGo) {
    try {
      return await read();
    } catch (err) {
      if (err?.code !== CODES.NOT_FOUND) throw err;
      letGo();
      return undefined;
    }
  }

  /** The whole file of `key` (one GET), or undefined when there is none. */
  async get(key, options) {
    const file = this.#opener.open(this.#href(key));
    try {
      return await HttpStore.#orMissing(() => file.readAll({ signal: options?.signal }), () => {});
    } finally {
      file.close(); // its bytes are the caller's now
    }
  }

  /**
   * {offset, length} or {suffixLength} of the file of `key` (a suffix in one request where the
   * server allows it, else after a HEAD), or undefined when there is none. Exactly the bytes asked
   * for, or an error (a file that ends before them: ERR_BAD_DATA); a suffix longer than the file
   * is the whole file.
   */
  getRange(key, range, options) {
    const signal = options?.signal;
    const file = this.#file(key);
    const letGo = () => {
      if (this.#files.get(key) === file) this.#files.delete(key);
      file.close();
    };
    return HttpStore.#orMissing(async () => {
      if ('suffixLength' in range) return (await readTail(file, range.suffixLength, { signal })).bytes;
      return file.read(range.offset, range.offset + range.length, { signal });
    }, letGo);
  }
}
