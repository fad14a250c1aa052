// Zero-copy views of values in a module's memory, as every decodeView returns them.
import { deprecated } from '../deprecate.js';
import { getModule } from './load.js';

// Per module, the views (and wasmInputs) not yet released, by what made them: while any is live
// the module's memory holds data a caller reads, so releaseMemory() must not replace the module.
const live = new WeakMap(); // module -> Map(what -> count)
let onFreed = null; // called with a module once nothing holds its memory (memory.js), or null

/** fn(mod) is called each time the last view or buffer holding mod's memory is released. */
export function setOnFreed(fn) {
  onFreed = fn;
}

/** {what: count} of a module's unreleased views and input buffers. */
export function liveViews(mod) {
  return Object.fromEntries(live.get(mod) ?? []);
}

/**
 * Counts an allocation that outlives a synchronous stretch (made, then filled across awaits) as a
 * holder of the module's memory, like a live view, so that releaseMemory() does not replace the
 * module under it. Returns the release function (safe to call more than once).
 */
export function holdMemory(mod, what) {
  count(mod, what, 1);
  let held = true;
  return () => {
    if (held) count(mod, what, -1);
    held = false;
  };
}

function count(mod, what, by) {
  let m = live.get(mod);
  if (m === undefined) live.set(mod, (m = new Map()));
  const n = (m.get(what) ?? 0) + by;
  if (n === 0) m.delete(what);
  else m.set(what, n);
  if (m.size === 0 && onFreed !== null) onFreed(mod);
}

/**
 * A zero-copy view of `length` values of class Type at ptr in the format's wasm memory, as every decodeView
 * returns it: `values` is re-created after memory growth (which detaches old typed arrays) and
 * throws once released; release() (also close() and Symbol.dispose) calls free() once.
 * `fields` are copied onto the view (dtype, byteLength, ...).
 */
export function wasmView(format, what, Type, ptr, length, free, fields) {
  return new WasmView(getModule(format), what, Type, ptr, length, free, fields);
}

// A class, not an object literal with getters: V8 defines a literal's accessors through slow
// runtime calls (about 4 µs a view, more than decoding a small file). release / close /
// Symbol.dispose are own functions, so they also work detached (`const { release } = view`).
export class WasmView {
  #mod;
  #what;
  #Type;
  #ptr;
  #length;
  #current = null;
  #released = false;

  constructor(mod, what, Type, ptr, length, free, fields) {
    if (fields) Object.assign(this, fields);
    this.#mod = mod;
    this.#what = what;
    this.#Type = Type;
    this.#ptr = ptr;
    this.#length = length;
    count(mod, what, 1);
    /** Frees the values' memory. Safe to call more than once. */
    this.release = () => {
      if (this.#released) return;
      this.#released = true;
      this.#current = null;
      count(mod, what, -1);
      free();
    };
    // Views are released, handles closed (docs/vocabulary.md): close() stays as a deprecated name.
    this.close = () => {
      deprecated(`${what}(…).close()`, 'release()');
      this.release();
    };
    if (typeof Symbol.dispose === 'symbol') this[Symbol.dispose] = this.release;
  }

  get values() {
    if (this.#released) throw new Error(`${this.#what}: the view was released; its memory may hold other data now`);
    const buffer = this.#mod.HEAPU8.buffer;
    if (this.#current === null || this.#current.buffer !== buffer) this.#current = new this.#Type(buffer, this.#ptr, this.#length);
    return this.#current;
  }

  get released() {
    return this.#released;
  }
}

// An N-d block's view (a Zarr readView): its values are `data`, as in { data, shape, stride }.
class WasmBlockView extends WasmView {
  get data() {
    return this.values;
  }
}

/** As wasmView, for an N-d block: `data` (and `values`) are the block's values. */
export function wasmBlockView(format, what, Type, ptr, length, free, fields) {
  return new WasmBlockView(getModule(format), what, Type, ptr, length, free, fields);
}
