// One signal that fires when either of two does: an open file's own signal and one call's signal
// (AbortSignal.any is missing before Node 20.3 and Safari 17.4). dispose() unhooks the long-lived
// signal after the call, so a file read many times does not gather a listener per read.

/**
 * @param {AbortSignal|undefined} a
 * @param {AbortSignal|undefined} b
 * @returns {{signal: AbortSignal|undefined, dispose(): void}}
 */
export function joinSignals(a, b) {
  for (const s of [a, b]) {
    if (s !== undefined && s !== null && typeof s.addEventListener !== 'function') {
      throw new TypeError(`options.signal must be an AbortSignal, got ${s?.constructor?.name ?? typeof s}`);
    }
  }
  if (!a || !b || a === b) return { signal: a ?? b, dispose() {} };
  const controller = new AbortController();
  const fire = (event) => controller.abort(event.target.reason);
  const dispose = () => {
    a.removeEventListener('abort', fire);
    b.removeEventListener('abort', fire);
  };
  if (a.aborted) controller.abort(a.reason);
  else if (b.aborted) controller.abort(b.reason);
  else {
    a.addEventListener('abort', fire, { once: true });
    b.addEventListener('abort', fire, { once: true });
  }
  return { signal: controller.signal, dispose };
}

/**
 * Lets `signal` take any number of abort listeners without Node's MaxListenersExceededWarning
 * (each request of a read listens on it: 64 at once from a Zarr store). Nothing to do elsewhere.
 * @param {AbortSignal} signal
 */
export function allowManyListeners(signal) {
  globalThis.process?.getBuiltinModule?.('node:events')?.setMaxListeners?.(0, signal);
  return signal;
}
