// Where Matrix.read / readView put a slice: fresh typed arrays, the caller's arrays (`into`), or
// wasm memory (a zero-copy view). The reader decodes into "targets": {array} (a JS typed array
// that receives the values at its start) or {ptr} (a byte offset in wasm memory).
import { deprecated } from '../deprecate.js';
import { BpcellsError, CODES } from '../errors.js';
import { getModule } from '../wasm/load.js';
import { malloc } from '../wasm/heap.js';
import { WasmView, holdMemory } from '../wasm/views.js';

const FORMAT = 'bpcells';
const VALUE_TYPES = { u32: Uint32Array, f32: Float32Array, f64: Float64Array };
const INTO_NAMES = ['idxptr', 'index', 'val'];

const className = (x) => (x === null ? 'null' : typeof x === 'object' ? (x.constructor?.name ?? 'an object') : typeof x);

/** The typed-array class of a matrix's values. */
export function valueArrayType(dtype) {
  return VALUE_TYPES[dtype];
}

/**
 * options.into, checked before anything is read: an object whose optional idxptr / index / val
 * are a Float64Array / Uint32Array / the value class. Exact classes (no subclass or Buffer
 * surprises): a wrong one is a TypeError naming the class wanted.
 */
export function checkInto(what, into, dtype) {
  if (into === undefined) return null;
  if (into === null || typeof into !== 'object' || ArrayBuffer.isView(into)) {
    throw new TypeError(`${what}: options.into must be an object {idxptr?, index?, val?}, got ${className(into)}`);
  }
  for (const key of Object.keys(into)) {
    if (!INTO_NAMES.includes(key)) throw new TypeError(`${what}: unknown into.${key} (one of ${INTO_NAMES.join(', ')})`);
  }
  const want = { idxptr: Float64Array, index: Uint32Array, val: VALUE_TYPES[dtype] };
  for (const key of INTO_NAMES) {
    const given = into[key];
    if (given === undefined) continue;
    if (!(given instanceof want[key])) {
      const why = key === 'val' ? ` (the matrix holds ${dtype} values)` : '';
      throw new TypeError(`${what}: into.${key} must be a ${want[key].name}${why}, got ${className(given)}`);
    }
  }
  return into;
}

function needRoom(what, key, array, length) {
  if (array.length < length) {
    throw new RangeError(`${what}: into.${key} has room for ${array.length} values, the slice needs ${length}`);
  }
}

// Fresh arrays for a read, every element of which the read writes before handing them out (on a
// failure they are dropped). Node can skip zero-filling their memory (Buffer.allocUnsafeSlow, its
// own fs.readFileSync does the same): two new 15 MB arrays filled took 2.9 ms zeroed first, 1.6 ms
// not (1.0 ms for arrays already touched). Each array owns exactly its buffer, so the worker pool
// can transfer it.
const allocUninitialized = typeof globalThis.Buffer?.allocUnsafeSlow === 'function' ? globalThis.Buffer.allocUnsafeSlow : null;

function freshArray(Type, n) {
  if (allocUninitialized === null || n === 0) return new Type(n);
  const bytes = allocUninitialized(n * Type.BYTES_PER_ELEMENT);
  return new Type(bytes.buffer, bytes.byteOffset, n);
}

/**
 * A fresh output array of n values (uninitialized where `fresh`), or a BpcellsError
 * ERR_OUTPUT_LIMIT naming the call when there is no memory for it: a 16-byte shape file may claim
 * billions of rows or columns, and V8's RangeError names neither.
 */
export function outputArray(what, Type, n, fresh = false) {
  try {
    return fresh ? freshArray(Type, n) : new Type(n);
  } catch (err) {
    throw new BpcellsError(`${what}: out of memory for ${n * Type.BYTES_PER_ELEMENT} bytes of output (${n} values; the matrix's shape says how many)`, {
      code: CODES.OUTPUT_LIMIT,
      cause: err,
    });
  }
}

/** Fresh arrays for the parts `into` does not give; RangeError if a given array is too small. */
export function jsOutput(what, into, dtype, nnz, entries) {
  if (into) {
    if (into.index) needRoom(what, 'index', into.index, nnz);
    if (into.val) needRoom(what, 'val', into.val, nnz);
    if (into.idxptr) needRoom(what, 'idxptr', into.idxptr, entries);
  }
  const index = into?.index ? into.index.subarray(0, nnz) : outputArray(what, Uint32Array, nnz, true);
  const val = into?.val ? into.val.subarray(0, nnz) : outputArray(what, VALUE_TYPES[dtype], nnz, true);
  const idxptr = into?.idxptr ? into.idxptr.subarray(0, entries) : outputArray(what, Float64Array, entries);
  return {
    index: { array: index },
    val: { array: val },
    idxptr,
    finish: () => ({ idxptr, index, val }),
    fail: () => {},
  };
}

// Live views, for viewStats() (and the tests' leak checks).
const live = { views: 0, bytes: 0 };

/** How many BPCells slice views are live and how many bytes of wasm memory they hold. */
export function viewStats() {
  return { live: live.views, bytes: live.bytes };
}

function allocate(mod, bytes, what) {
  const ptr = malloc(mod, Math.max(bytes, 1));
  if (ptr === 0) throw new BpcellsError(`${what}: out of wasm memory for ${bytes} bytes of output`, { code: CODES.OUTPUT_LIMIT });
  return ptr;
}

/**
 * Index and values decoded straight into one wasm allocation; finish() wraps it in the view
 * readView returns, fail() frees it. Until then the allocation counts as a holder of the module's
 * memory (holdMemory), so releaseMemory() cannot swap the module under it should a caller ever
 * fill it across an await.
 */
export function viewOutput(what, dtype, nnz, entries) {
  const mod = getModule(FORMAT);
  const Type = VALUE_TYPES[dtype];
  const valBytes = nnz * Type.BYTES_PER_ELEMENT;
  // Values first: f64 values need 8-byte alignment, malloc gives it and 4-byte indices follow.
  const bytes = valBytes + nnz * 4;
  const idxptr = outputArray(what, Float64Array, entries);
  const base = allocate(mod, bytes, what);
  const unhold = holdMemory(mod, what);
  let freed = false;
  const free = () => {
    if (freed) return;
    freed = true;
    mod._free(base);
  };
  return {
    index: { ptr: base + valBytes },
    val: { ptr: base },
    idxptr,
    fail: () => {
      unhold();
      free();
    },
    finish: () => {
      // The views count as holders from here on.
      const view = makeView(mod, what, Type, dtype, base, valBytes, nnz, idxptr, bytes, free);
      unhold();
      return view;
    },
  };
}

// The view: `index` and `val` getters over wasm memory (re-created after memory growth, throwing
// once released) and one release() for both, as pco.decodeView's `values`.
function makeView(mod, what, Type, dtype, base, valBytes, nnz, idxptr, bytes, free) {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    live.views -= 1;
    live.bytes -= bytes;
    free();
  };
  const indexView = new WasmView(mod, what, Uint32Array, base + valBytes, nnz, () => {});
  const valView = new WasmView(mod, what, Type, base, nnz, () => {});
  live.views += 1;
  live.bytes += bytes;
  const view = {
    dtype,
    nnz,
    /** Entries (index.length = val.length = nnz). */
    length: nnz,
    byteLength: bytes,
    idxptr,
    get index() {
      return indexView.values;
    },
    get val() {
      return valView.values;
    },
    get released() {
      return released;
    },
    /** Frees the index and values' memory. Safe to call more than once. */
    release() {
      indexView.release();
      valView.release();
      release();
    },
    /** Deprecated (docs/vocabulary.md: views are released, handles closed): release(). */
    close() {
      deprecated('bpcells view close()', 'release()');
      view.release();
    },
  };
  if (typeof Symbol.dispose === 'symbol') view[Symbol.dispose] = view.release;
  return view;
}
