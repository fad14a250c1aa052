// A zarrita store wrapper that counts what it fetches (requests and bytes), so a viewer can show
// that a slice reads only the chunks it covers. It also refuses byte ranges no chunk could
// need: a damaged shard index (or one zarrita misreads) must not turn into a gigabyte allocation.
import { NumdecodeError, CODES } from '../errors.js';

const METADATA_KEY = /(^|\/)(zarr\.json|\.zarray|\.zgroup|\.zattrs|\.zmetadata)$/;

/** True for a Zarr metadata key (v2 or v3), false for chunk and shard keys. */
export function isMetadataKey(key) {
  return METADATA_KEY.test(key);
}

/**
 * Wraps a zarrita store ({get(key), getRange?(key, range)}).
 * @param {{get: Function, getRange?: Function}} inner
 * @param {{maxRangeBytes?: number, name?: string}} [options] maxRangeBytes: largest single range read (default 1 GiB)
 * @returns the wrapped store; its `stats` are {requests, bytes, chunkRequests, chunkBytes, keys}
 */
export function countingStore(inner, { maxRangeBytes = 2 ** 30, name = 'store' } = {}) {
  const stats = { requests: 0, bytes: 0, chunkRequests: 0, chunkBytes: 0, keys: [] };
  const count = (key, bytes) => {
    const n = bytes?.byteLength ?? 0;
    stats.requests++;
    stats.bytes += n;
    if (!isMetadataKey(key)) {
      stats.chunkRequests++;
      stats.chunkBytes += n;
      // The last keys only (a viewer shows them; tests check them): bounded memory.
      if (stats.keys.length >= 4096) stats.keys.shift();
      stats.keys.push(key);
    }
    return bytes;
  };
  const store = {
    stats,
    async get(key, options) {
      return count(key, await inner.get(key, options));
    },
  };
  if (typeof inner.getRange === 'function') {
    store.getRange = async (key, range, options) => {
      const length = range?.length ?? range?.suffixLength;
      if (!(Number.isSafeInteger(length) && length >= 0 && length <= maxRangeBytes) ||
          (range.offset !== undefined && !(Number.isSafeInteger(range.offset) && range.offset >= 0))) {
        throw new NumdecodeError(
          `${name}: refusing to read ${JSON.stringify(range)} of ${key}: not a byte range a chunk can have (limit ${maxRangeBytes} bytes); the shard index is damaged or laid out in a way zarrita does not read`,
          { code: CODES.BAD_DATA, file: key },
        );
      }
      return count(key, await inner.getRange(key, range, options));
    };
  }
  if (typeof inner.contents === 'function') store.contents = () => inner.contents();
  return store;
}
