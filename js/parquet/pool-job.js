// The worker's side of a Parquet read in a worker pool (job format 'parquet', see
// js/worker/worker.js): reads one column chunk (a row group of one FLOAT / DOUBLE column) from a
// local path, or from the chunk's bytes sent along, and decodes it into the shared output, or,
// without shared memory, into arrays sent back (moved, not copied) for the caller to place.
import { ensureFormat } from '../wasm/load.js';
import { openFile } from '../io/open.js';
import { outputFor, readTasks } from './float-column.js';
import { chunkBuffer } from './chunk-buffer.js';

/**
 * @param {string|Uint8Array} source a local path, or the chunk's bytes (file offsets [job.base, ...))
 * @param {{name: string, fileSize: number, base?: number, chunk: object,
 *   column: {name: string, leafIndex: number, type: string, maxDef: number},
 *   group: {index: number, start: number, rows: number, selStart: number, selEnd: number},
 *   output: {values: Float32Array|Float64Array, valid: Uint8Array|null} | null}} job
 *   output: the column's arrays over shared memory, already cut to this chunk's rows (valid null
 *   when the caller gave no shared validity: the chunk's comes back, when it has nulls)
 * @returns {Promise<{nulls: number, values?: Float32Array|Float64Array, valid?: Uint8Array|null}>}
 */
export async function readChunk(source, job) {
  await ensureFormat('alp');
  const { name, fileSize, chunk, column, group, output } = job;
  const file =
    typeof source === 'string'
      ? openFile(source, { name })
      : openFile({ size: () => fileSize, read: (s, e) => source.subarray(s - job.base, e - job.base) }, { name });
  // The chunk's metadata where the reader looks it up: row group index, leaf index.
  const rowGroups = [];
  rowGroups[group.index] = { columns: Object.assign([], { [column.leafIndex]: chunk }) };
  const ctx = { file, fileSize, name, metadata: { row_groups: rowGroups }, readAhead: 0 };
  if (typeof file.readSync === 'function') ctx.chunkBuffer = chunkBuffer(file);
  const rows = group.selEnd - group.selStart;
  output?.valid?.fill(1); // the caller's shared validity, this chunk's rows: all present before the nulls
  const out = outputFor(column, rows, output ?? {});
  try {
    await readTasks(ctx, [{ group, column, dst: 0 }], new Map([[column.name, out]]));
  } finally {
    ctx.chunkBuffer?.release();
    file.close();
  }
  // Into shared values without a shared validity: the chunk's own validity, when it has nulls.
  if (output) return { nulls: out.nulls, valid: !output.valid && out.nulls > 0 ? out.valid : null };
  return { nulls: out.nulls, values: out.values, valid: out.nulls > 0 ? out.valid : null };
}
