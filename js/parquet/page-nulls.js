// An OPTIONAL column's pages in the ALP module (src/parquet/levels.cpp): definition levels read
// as validity there, and an ALP page's dense values spread around its nulls there, before the rows
// go out in one copy. In JS (levels.js, float-page.js' spreadNulls) these took a fifth of a read of
// a column with 1 % nulls: some 500 runs and 250 moves a page, each a call of its own.
import { CODES, NumdecodeError } from '../errors.js';
import { malloc } from '../wasm/heap.js';
import { getModule } from '../wasm/load.js';
import { binding, wasmCaller } from '../wasm/call.js';
import { holdMemory } from '../wasm/views.js';

const call = wasmCaller('alp', NumdecodeError);

/**
 * A read's working memory in the ALP module, grown as pages need and freed by release(): a page's
 * validity and its values while they are spread. It holds the module's memory (releaseMemory()
 * waits) from the first page that uses it to release().
 */
export function wasmPageScratch() {
  const held = { validity: { address: 0, bytes: 0 }, values: { address: 0, bytes: 0 } };
  let mod = null; // the module the memory is in (it cannot be replaced while held)
  let unhold = null;
  const grow = (slot, bytes, what) => {
    if (slot.bytes >= bytes) return slot.address;
    mod ??= getModule('alp');
    if (slot.address) mod._free(slot.address);
    slot.address = 0;
    slot.bytes = 0;
    const address = malloc(mod, Math.max(bytes, 1));
    if (address === 0) throw new NumdecodeError(`out of wasm memory for ${bytes} bytes of a page's ${what}`, { code: CODES.OUTPUT_LIMIT });
    unhold ??= holdMemory(mod, 'parquet page scratch');
    slot.address = address;
    slot.bytes = bytes;
    return address;
  };
  return {
    /** The address of n bytes for a page's validity. */
    validity: (n) => grow(held.validity, n, 'validity'),
    /** The address of `bytes` bytes for a page's values. */
    values: (bytes) => grow(held.values, bytes, 'values'),
    release() {
      for (const slot of Object.values(held)) {
        if (slot.address) mod._free(slot.address);
        slot.address = 0;
        slot.bytes = 0;
      }
      unhold?.();
      unhold = null;
    },
  };
}

/**
 * The page's `count` definition levels (hybrid runs of bitWidth <= 8 bits in levels) as validity
 * at `address` in the ALP module: 1 present, 0 null. Returns the number present.
 * @throws {string} what is wrong with the levels (or an ERR_OUTPUT_LIMIT error)
 */
export function validityInWasm(levels, bitWidth, maxDef, count, address) {
  try {
    return call([levels], (p, len) => binding('alp', '_numdecode_parquet_validity')(p, len, bitWidth, maxDef, count, address));
  } catch (err) {
    if (err?.code === CODES.OUTPUT_LIMIT) throw err; // no room to copy the levels in: not damage
    throw `definition levels: ${err?.message ?? err}`;
  }
}

/** A view of n bytes at `address` in the ALP module's memory (made now: a call may have grown it). */
export const wasmBytes = (address, n) => new Uint8Array(getModule('alp').HEAPU8.buffer, address, n);

/**
 * The `dense` values at `values` (`width` bytes each) spread in place over `rows` rows as the
 * validity at `validity` says, 0 at the nulls.
 */
export function spreadInWasm(values, width, validity, rows, dense) {
  call([], () => binding('alp', '_numdecode_parquet_spread')(values, width, validity, rows, dense));
}
