// readView's side of a Parquet read: each FLOAT / DOUBLE column's output allocated in the ALP
// module's memory, where its pages decode (float-column.js's readTasks, the same loop as read()'s),
// handed to the caller as views. Loaded only when a read asks for views.
import { CODES, ParquetError } from '../errors.js';
import { getModule } from '../wasm/load.js';
import { malloc } from '../wasm/heap.js';
import { wasmView } from '../wasm/views.js';
import { chunkTasks, readTasks } from './float-column.js';

/** Refuses a selection with a column that is not a flat FLOAT / DOUBLE one, naming it. */
export function checkViewColumns(selected, fileName) {
  const others = selected.filter((c) => !c.flatFloat);
  if (others.length) {
    const names = others.map((c) => c.name).join(', ');
    const many = others.length > 1;
    throw new ParquetError(`parquet readView: ${fileName}: column${many ? 's' : ''} ${names} ${many ? 'are' : 'is'} not ${many ? '' : 'a '}FLOAT / DOUBLE column${many ? 's' : ''} of one value per row (top level or in a struct), which readView decodes into wasm memory; leaves inside lists and other types read with read(); pass options.columns naming such columns`, {
      code: CODES.UNSUPPORTED,
      file: fileName,
      column: others[0].name,
    });
  }
}

/** readView's result: the column views, and release() for all of them at once. */
export function viewResult(numRows, columns) {
  const release = () => {
    for (const view of Object.values(columns)) view.release();
  };
  const result = { numRows, columns, release };
  if (typeof Symbol.dispose === 'symbol') result[Symbol.dispose] = release;
  return result;
}

/**
 * A column's output in the ALP module's memory, for readView: `view` is what the caller gets (a
 * WasmView: `values` re-made after memory growth, release() frees it); the pages write through
 * `address` (ALP) and `values`, re-read after every wasm call. Every row is written (a value, or 0
 * at a null), so malloc'd memory's old bytes never show.
 */
function outputView(column, numRows, fileName) {
  const Type = column.type === 'FLOAT' ? Float32Array : Float64Array;
  const dtype = column.type === 'FLOAT' ? 'f32' : 'f64';
  const byteLength = numRows * Type.BYTES_PER_ELEMENT;
  const mod = getModule('alp');
  const address = byteLength === 0 ? 0 : malloc(mod, byteLength);
  if (byteLength > 0 && address === 0) {
    throw new ParquetError(`parquet readView: ${fileName}: column ${column.name}: out of wasm memory for ${byteLength} bytes of output`, {
      code: CODES.OUTPUT_LIMIT,
      file: fileName,
      column: column.name,
    });
  }
  const view = wasmView('alp', 'parquet.readView', Type, address, numRows, () => byteLength > 0 && mod._free(address), {
    kind: 'float',
    type: column.type,
    dtype,
    length: numRows,
    byteLength,
    valid: null,
  });
  return {
    type: column.type,
    view,
    address,
    dtype,
    get values() {
      return view.values;
    },
    valid: null, // made when a page has a null (float-column.js validityOf)
    validRows: numRows,
    nulls: 0,
  };
}

/**
 * As readFloatColumns, each column into the ALP module's memory (outputView): resolves to column
 * name -> its view, with `valid` set; a failure frees every view.
 * @returns {Promise<Map<string, import('../wasm/views.js').WasmView>>}
 */
export async function readFloatColumnViews(ctx, columns, groups, numRows) {
  const outputs = new Map();
  try {
    for (const c of columns) outputs.set(c.name, outputView(c, numRows, ctx.name));
    await readTasks(ctx, chunkTasks(columns, groups), outputs);
  } catch (err) {
    for (const out of outputs.values()) out.view.release();
    throw err;
  }
  return new Map([...outputs].map(([name, out]) => [name, Object.assign(out.view, { valid: out.nulls > 0 ? out.valid : null })]));
}
