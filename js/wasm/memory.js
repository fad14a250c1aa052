// Giving wasm memory back. Wasm memory only grows, so the only way back is a fresh instance of the
// module in place of the old one: safe while nothing the caller holds points into the old memory
// (views, wasmInput buffers, an open matrix's resident words: counted in views.js). docs/api.md#memory
import { CODES, NumdecodeError } from '../errors.js';
import { freshInstance, loadedModules, replaceModule, setOnUse } from './load.js';
import { liveViews, setOnFreed } from './views.js';

const bytesOf = (mod) => mod.HEAPU8.buffer.byteLength;
const swapping = new Map(); // format -> promise of its swap in progress
const trapped = new Map(); // format -> the module a trap left, whose swap waits for its memory's holders

/** Each loaded module's wasm memory: {bytes, live: {what: count of unreleased views and buffers}}. */
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

// A fresh instance replaces the module, unless something came to hold the old memory meanwhile.
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
 * Each loaded module (or those of options.formats) replaced by a fresh instance of itself; ERR_IN_USE
 * while a view or input buffer of one is live. Resolves to {format: {before, after, released}}.
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

/**
 * After a trap (a WebAssembly.RuntimeError: out of bounds, a division by zero) the module's stack
 * pointer and heap are where the trap left them, and each trap leaks more: a fresh instance takes
 * its place, in the background, as soon as nothing holds its memory (the calls made meanwhile use
 * the old one, as before). While a view or buffer holds it, the swap waits for the last release.
 */
export function replaceAfterTrap(format) {
  const mod = loadedModules().get(format);
  if (mod === undefined) return;
  trapped.set(format, mod);
  setOnFreed(swapTrapped);
  swapTrapped(mod);
}

// The trapped module's swap, now that nothing may hold it (a swap finding holders leaves it trapped).
function swapTrapped(mod) {
  for (const [format, old] of trapped) {
    if (old !== mod) continue;
    if (loadedModules().get(format) !== old) {
      trapped.delete(format); // replaced meanwhile (releaseMemory)
      continue;
    }
    swap(format, false)
      .then(({ released }) => {
        if (released || loadedModules().get(format) !== old) trapped.delete(format);
      })
      .catch(() => {});
  }
  if (trapped.size === 0) setOnFreed(null);
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

/** After a call leaves a module above `bytes`, release it once the task is over (null: off). */
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
