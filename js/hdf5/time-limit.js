// How long one synchronous HDF5 call may run (Node). A damaged file can send HDF5 round a loop
// that reads nothing (seen: a copied region made the version string's read spin forever); in
// Node, V8's watchdog (node:vm's timeout, which also stops wasm loops) ends such a call, and the
// runtime, interrupted mid-call, is replaced for the next file. Browsers have no such watchdog
// on the main thread: there the limit does not apply (see docs/bpcells.md).
import { isNode } from '../io/location.js';

export const DEFAULT_TIME_LIMIT_MS = 30000;
let watchdog = null; // Node: { script, context } of node:vm

/** Loads the watchdog where there is one (Node); later calls do nothing. */
export async function loadWatchdog() {
  if (!isNode() || watchdog) return;
  const vm = await import(/* webpackIgnore: true */ 'node:vm');
  const context = vm.createContext({ call: null });
  watchdog = { script: new vm.Script('call()'), context };
}

/** What withTimeLimit throws when the call ran out of time. */
export class TimeLimitExceeded extends Error {
  constructor(ms) {
    super(`HDF5 did not finish within ${ms} ms`);
    this.ms = ms;
  }
}

/** Runs the synchronous fn, stopped after ms where a watchdog exists. */
export function withTimeLimit(ms, fn) {
  if (watchdog === null || !(ms > 0) || ms === Infinity) return fn();
  watchdog.context.call = fn;
  try {
    return watchdog.script.runInContext(watchdog.context, { timeout: ms });
  } catch (err) {
    if (err?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new TimeLimitExceeded(ms);
    throw err;
  } finally {
    watchdog.context.call = null;
  }
}
