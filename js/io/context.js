// What the files of one opening share: resolved options, one stats object, one block cache, and
// for HTTP what the server said about ranges.
import { RangeCache } from './cache.js';
import { resolveOptions } from './options.js';
import { newStats } from './stats.js';

export function newContext(options, { perFile = true } = {}) {
  const opts = resolveOptions(options);
  return { options: opts, stats: newStats({ perFile }), cache: new RangeCache(opts.cacheBytes), http: { rangeSupported: undefined } };
}
