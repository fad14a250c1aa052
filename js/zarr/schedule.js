// Runs a read's tasks with a bounded number in flight. Tasks come from a generator (pulled only as
// slots free up, so a selection of a million chunks never lists them) and may resolve to further
// tasks (a shard's ranges once its index is in), which run before the generator's next. The
// first failure ends the run: nothing new starts, and the caller's abort stops what is in flight.

/**
 * @param {Iterator<() => Promise<void | (() => Promise<void>)[]>>} source
 * @param {number} limit the most tasks in flight at once
 * @param {AbortSignal} [signal] stops starting tasks once aborted (the rejection is the caller's abort error)
 * @param {() => Error} [abortError] the error to reject with when `signal` fires
 * @returns {Promise<void>}
 */
export function runTasks(source, limit, signal, abortError) {
  return new Promise((resolve, reject) => {
    const follow = []; // tasks that earlier tasks resolved to
    let active = 0;
    let exhausted = false;
    let failed = false;
    const fail = (err) => {
      if (failed) return;
      failed = true;
      signal?.removeEventListener('abort', onAbort);
      try {
        source.return?.(); // a generator's finally runs (js/zarr/fetch.js lets go of its reader)
      } catch {
        // it failed while running: it has ended already
      }
      reject(err);
    };
    const onAbort = () => fail(abortError ? abortError() : signal.reason);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const next = () => {
      if (follow.length) return follow.shift();
      if (exhausted) return null;
      const step = source.next();
      if (step.done) {
        exhausted = true;
        return null;
      }
      return step.value;
    };
    const pump = () => {
      while (!failed && active < limit) {
        let task;
        try {
          task = next();
        } catch (err) {
          return fail(err);
        }
        if (!task) break;
        active++;
        let started;
        try {
          started = Promise.resolve(task());
        } catch (err) {
          started = Promise.reject(err);
        }
        started.then((more) => {
          active--;
          if (Array.isArray(more)) follow.push(...more);
          pump();
        }, fail);
      }
      if (!failed && active === 0 && exhausted && follow.length === 0) {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }
    };
    pump();
  });
}
