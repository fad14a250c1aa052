// Giving wasm memory back. A WebAssembly memory only grows: whatever a module's peak was, a page or
// a Node service keeps it for as long as the module lives. The only way back is a new instance of
// the module (a fresh load's memory) in place of the old one, which is safe only while nothing
// the caller holds points into the old memory: views, wasmInput buffers, an open BPCells matrix's
// resident words. Those are counted (views.js); while any is live the module stays.
import { CODES, NumdecodeError } from '../errors.js';
import { freshInstance, loadedModules, replaceModule, setOnUse } from './load.js';
import { liveViews } from './views.js';

const bytesOf = (mod) => mod.HEAPU8.buffer.byteLength;
const swapping = new Map(); // format -> promise of its swap in progress

/**
 * Each loaded module's wasm memory: `bytes` (what the module holds now, which never shrinks by
 * itself) and `live` (what keeps it: unreleased views and input buffers, by what made them).
 * @returns {Record<string, {bytes: number, live: Record<string, number>}>}
 */
export function memoryUsage() {
  const out = {};
  for (const [format, mod] of loadedModules()) out[format] = { bytes: bytesOf(mod), live: liveViews(mod) };
  return out;
}

function heldBy(mod) {
  return Object.entries(liveViews(mod)).map(([what, n]) => `${n} from ${what}`);
}

function inUseError(format, held) {
  return new NumdecodeError(
    `numdecode.releaseMemory: the ${format} module's memory is still held (${held.join(', ')}): release() those views and buffers (or close the matrix) first`,
    { code: CODES.IN_USE },
  );
}

// Replaces the format's module by a fresh instance, unless something came to hold the old one's
// memory while the new one loaded (then the new one is dropped: `strict` throws, else it is skipped).
function swap(format, strict) {
  let promise = swapping.get(format);
  if (promise !== undefined) return promise;
  promise = (async () => {
    const old = loadedModules().get(format);
    const before = bytesOf(old);
    const held = heldBy(old);
    if (held.length > 0) {
      if (strict) throw inUseError(format, held);
      return { before, after: before, released: false };
    }
    const mod = await freshInstance(format);
    const heldNow = heldBy(old);
    if (heldNow.length > 0 || loadedModules().get(format) !== old) {
      if (strict && heldNow.length > 0) throw inUseError(format, heldNow);
      return { before, after: bytesOf(old), released: false };
    }
    replaceModule(format, mod);
    return { before, after: bytesOf(mod), released: true };
  })().finally(() => swapping.delete(format));
  swapping.set(format, promise);
  return promise;
}

/**
 * Gives the loaded modules' memory back: each one (or those of options.formats) is replaced by a
 * fresh instance of itself, whose memory is what a fresh load has. Costs a new instantiation (a
 * few ms; the next call pays nothing more) and whatever the module kept between calls (its
 * scratch buffers). Refuses with ERR_IN_USE while a view or input buffer of a module is live:
 * release them first. Resolves to {format: {before, after, released}} in bytes.
 * @param {{formats?: string[]}} [options]
 */
export async function releaseMemory(options = {}) {
  const loaded = loadedModules();
  const formats = options?.formats ?? [...loaded.keys()];
  if (!Array.isArray(formats)) throw new TypeError('numdecode.releaseMemory: options.formats must be an array of format names');
  for (const format of formats) {
    if (!loaded.has(format)) throw new TypeError(`numdecode.releaseMemory: ${JSON.stringify(format)} is not a loaded format (loaded: ${[...loaded.keys()].join(', ') || 'none'})`);
  }
  // Every format checked before any is replaced: all or nothing.
  for (const format of formats) {
    const held = heldBy(loaded.get(format));
    if (held.length > 0) throw inUseError(format, held);
  }
  const out = {};
  for (const format of formats) out[format] = await swap(format, true);
  return out;
}

let threshold = null;
let scheduled = false;

function checkAfterUse() {
  scheduled = false;
  if (threshold === null) return;
  for (const [format, mod] of loadedModules()) {
    if (bytesOf(mod) > threshold) swap(format, false).catch(() => {}); // retried after a later call
  }
}

/**
 * Automatic release: after a call that left a module's memory above `bytes`, the module is
 * replaced by a fresh instance once the call's task is over and nothing holds its memory (checked
 * again then; a held module is retried after a later call). null turns it off (the default).
 * Trade-off: memory comes back between bursts of work, and the first call after a release pays
 * for memory growing again (the first touch of fresh pages).
 * @param {number|null} bytes
 */
export function autoReleaseMemory(bytes) {
  if (bytes !== null && !(Number.isFinite(bytes) && bytes >= 0)) {
    throw new RangeError(`numdecode.autoReleaseMemory: bytes must be a non-negative number or null, got ${bytes}`);
  }
  threshold = bytes;
  setOnUse(
    bytes === null
      ? null
      : () => {
          if (scheduled) return;
          scheduled = true;
          setTimeout(checkAfterUse, 0);
        },
  );
}
