// Backoff between attempts: capped exponential with jitter, or the server's Retry-After (capped too).
import { IoError, abortError } from '../errors.js';

/** ms to wait before attempt `attempt` (1 = first retry). */
export function backoff(attempt, { retryDelay, maxRetryDelay }, retryAfterMs) {
  if (retryAfterMs !== null && retryAfterMs !== undefined) return Math.min(maxRetryDelay, Math.max(0, retryAfterMs));
  const step = retryDelay * 2 ** (attempt - 1);
  // "Equal jitter": half fixed, half random, so clients that failed together spread out.
  return Math.min(maxRetryDelay, step / 2 + Math.random() * (step / 2));
}

/** Retry-After as ms: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value, now = Date.now()) {
  if (value === null || value === undefined) return null;
  const v = String(value).trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, t - now);
}

/** Waits `ms`, or rejects with ERR_ABORTED as soon as one of `signals` fires. */
export function sleep(ms, signals, what) {
  return new Promise((resolve, reject) => {
    const live = signals.filter(Boolean);
    const fired = live.find((s) => s.aborted);
    if (fired) return reject(abortError(fired, what, IoError));
    const done = () => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener('abort', onAbort);
    };
    const onAbort = (ev) => {
      done();
      reject(abortError(ev?.target ?? live.find((s) => s.aborted), what, IoError));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, Math.min(ms, 2 ** 31 - 1));
    for (const s of live) s.addEventListener('abort', onAbort, { once: true });
  });
}
