// Caps the requests in flight per origin. Handles opened with the same cap share one queue per
// origin, so many files on one server together stay within it (browsers allow ~6 per host).

const limiters = new Map(); // `${origin} ${cap}` -> Limiter

export class Limiter {
  constructor(cap) {
    this.cap = cap;
    this.active = 0;
    this.peak = 0; // most requests seen in flight at once (tests check the cap with it)
    this.queue = [];
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` fires while queued. */
  acquire(signal) {
    return new Promise((resolve, reject) => {
      const grant = () => {
        this.active += 1;
        this.peak = Math.max(this.peak, this.active);
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.active -= 1;
          this.queue.shift()?.();
        });
      };
      if (this.active < this.cap) return grant();
      const entry = () => {
        signal?.removeEventListener('abort', onAbort);
        grant();
      };
      const onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
    });
  }
}

export function limiterFor(origin, cap) {
  const key = `${origin} ${cap}`;
  let l = limiters.get(key);
  if (!l) {
    l = new Limiter(cap);
    limiters.set(key, l);
  }
  return l;
}
