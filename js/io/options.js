// The options every opener accepts; an unknown name is a TypeError (a typo must not be ignored).
import { renamedOption } from '../deprecate.js';
import { nodeSendsRequests } from './location.js';

// Requests in flight per origin: a browser's own limit over HTTP/1.1 where it sends them (more
// would wait in its queue, timers running); in Node, where the requests in flight set the speed
// over a far link, 64.
export const defaultConcurrency = () => (nodeSendsRequests() ? 64 : 6);

// maxBytes was the download limit's name before docs/vocabulary.md: still read, warning once.
const withReadBytes = (options, where) => renamedOption(options, 'maxBytes', 'maxReadBytes', where);

export const DEFAULTS = Object.freeze({
  retries: 3, // extra attempts after the first; 0 turns retrying off
  timeout: 60000, // ms of silence a request may take: until its answer's headers, then between pieces of its body
  signal: undefined,
  headers: undefined,
  fetch: undefined,
  maxReadBytes: Infinity, // total bytes this file / directory may download (was maxBytes)
  cacheBytes: 16 * 1024 * 1024, // LRU block cache bound; 0 = no cache
  blockSize: 0, // > 0: fetches are widened to whole aligned blocks (read-ahead); 0 = exact ranges
  gap: 64 * 1024, // readRanges merges ranges separated by fewer bytes than this
  // requests in flight per origin (a getter: asked at each open)
  get concurrency() {
    return defaultConcurrency();
  },
  name: undefined, // how errors name the file
  retryDelay: 200, // ms: first backoff step (doubles per attempt, with jitter)
  maxRetryDelay: 10000, // ms: cap on any backoff and on a server's Retry-After
  ifRange: undefined, // send If-Range on later ranges; default: yes, except cross-origin in browsers
  suffixRange: undefined, // readTail asks for `bytes=-n` (size and tail at once); default: yes, except cross-origin in browsers
});

const positive = (v) => typeof v === 'number' && v > 0;
const nonNegative = (v) => typeof v === 'number' && v >= 0;

const CHECKS = {
  retries: (v) => Number.isInteger(v) && v >= 0,
  timeout: positive,
  signal: (v) => v === undefined || (typeof v === 'object' && v !== null && 'aborted' in v),
  headers: (v) => v === undefined || (typeof v === 'object' && v !== null),
  fetch: (v) => v === undefined || typeof v === 'function',
  maxReadBytes: positive,
  cacheBytes: nonNegative,
  blockSize: (v) => Number.isInteger(v) && v >= 0,
  gap: nonNegative,
  concurrency: (v) => Number.isInteger(v) && v > 0,
  name: (v) => v === undefined || typeof v === 'string',
  retryDelay: nonNegative,
  maxRetryDelay: nonNegative,
  ifRange: (v) => v === undefined || typeof v === 'boolean',
  suffixRange: (v) => v === undefined || typeof v === 'boolean',
};

/** Options merged over the defaults; TypeError for unknown names, RangeError for bad values. */
export function resolveOptions(options) {
  if (options === undefined || options === null) return { ...DEFAULTS };
  if (typeof options !== 'object') throw new TypeError(`options must be an object, got ${typeof options}`);
  options = withReadBytes(options, 'io');
  checkOptionNames(options);
  const out = { ...DEFAULTS };
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (!CHECKS[key](value)) throw new RangeError(`option ${key}: invalid value ${String(value)}`);
    out[key] = value;
  }
  return out;
}

/**
 * TypeError for a name that is neither an I/O option nor one of the reader's own (`also`, listed in
 * the message; `quietly`: accepted, not listed: old names). `what` starts the message.
 * @param {object} options
 * @param {{what?: string, also?: string[], quietly?: string[]}} [reader]
 */
export function checkOptionNames(options, { what = '', also = [], quietly = [] } = {}) {
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(DEFAULTS, key) || also.includes(key) || quietly.includes(key)) continue;
    throw new TypeError(`${what ? `${what}: ` : ''}unknown option "${key}" (known: ${[...also, ...Object.keys(DEFAULTS)].join(', ')})`);
  }
}

/** The I/O options among a reader's options (the reader keeps the rest, e.g. bpcells' prefetchBytes). */
export function ioOptionsOf(options) {
  options = withReadBytes(options, 'io');
  const out = {};
  for (const key of Object.keys(DEFAULTS)) if (options?.[key] !== undefined) out[key] = options[key];
  return out;
}
