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

// Pages of more rows than this read their levels and spread their nulls in JS: the scratch is
// sized by what page headers claim, which a few bytes of levels can make billions, and a wasm
// module keeps the memory it grew to (a JS array of the same size is collected).
export const MAX_WASM_PAGE_ROWS = 1 << 20;

/**
 * Working memory in the ALP module for a column chunk's pages: a page's validity (a byte a row)
 * and, when asked for, its values while they are spread (8 bytes a row). reserve() it before any
 * view of the module's memory is made that must outlive it (a page's bytes in the chunk buffer):
 * growing the memory detaches such views. While reserved it holds the module's memory
 * (releaseMemory() refuses with ERR_IN_USE, as for a view); release() frees it.
 */
export function wasmPageScratch() {
  let mod = null;
  let address = 0;
  let rows = 0;
  let values = false;
  let unhold = null;
  const scratch = {
    /**
     * Room for pages of up to n rows, with room for their values when `withValues`. None past
     * MAX_WASM_PAGE_ROWS, nor when the module has no room: fits() then says no, and those pages
     * are read in JS as before (a scratch is a speed-up, not worth failing a read for).
     */
    reserve(n, withValues = true) {
      const want = Math.min(Math.max(n, 0), MAX_WASM_PAGE_ROWS);
      if (want <= rows && (values || !withValues)) return;
      scratch.release();
      if (want === 0) return;
      mod = getModule('alp');
      const at = malloc(mod, want * (withValues ? 9 : 1) + 8);
      if (at === 0) return;
      unhold = holdMemory(mod, 'parquet page scratch');
      address = at;
      rows = want;
      values = withValues;
    },
    /** Whether a page of n rows has room for its validity (checked without allocating). */
    fits: (n) => address !== 0 && n <= rows,
    /** Whether the values of such a page have room too. */
    get hasValues() {
      return values;
    },
    /** The address of the page's validity (rows bytes). */
    get validityAt() {
      return address;
    },
    /** The address of the page's values (8-byte aligned, 8 bytes a row; with hasValues). */
    get valuesAt() {
      return Math.ceil((address + rows) / 8) * 8; // (not `& ~7`: an address past 2 GiB would turn negative)
    },
    release() {
      if (address) mod._free(address);
      address = 0;
      rows = 0;
      values = false;
      unhold?.();
      unhold = null;
    },
  };
  return scratch;
}

/**
 * The page's `count` definition levels (hybrid runs of bitWidth <= 8 bits in levels) as validity
 * at `address` in the ALP module: 1 present, 0 null. Returns the number present.
 * @throws {string | {unsupported: string}} what is wrong with the levels (or an ERR_OUTPUT_LIMIT error)
 */
export function validityInWasm(levels, bitWidth, maxDef, count, address) {
  try {
    return call([levels], (p, len) => binding('alp', '_numdecode_parquet_validity')(p, len, bitWidth, maxDef, count, address));
  } catch (err) {
    if (err?.code === CODES.OUTPUT_LIMIT) throw err; // no room to copy the levels in: not damage
    if (err?.code === CODES.UNSUPPORTED) throw { unsupported: err.message }; // a module older than this JS
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
