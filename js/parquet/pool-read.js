// The calling thread's side of a Parquet read in a worker pool (options.pool): one job per column
// chunk (a row group of one FLOAT / DOUBLE column), all queued at once, so that row groups and
// columns decode in parallel. A local path is read by the workers themselves; from other sources
// the chunk's bytes are fetched here and sent along. With shared memory (Node, or a
// cross-origin-isolated page) the workers decode straight into the column's output (the caller's
// `into` arrays when they are shared, new shared arrays else); otherwise they send their rows back
// and they are copied into place here.
import { outputFor, outputInto, chunkTasks, finishedOutputs, readTasks, validityOf } from './float-column.js';
import { chunkRange, usesOffsetIndex } from './chunk-pages.js';
import { columnError } from './column-error.js';

const canShare = () =>
  typeof SharedArrayBuffer === 'function' && (typeof process === 'object' || globalThis.crossOriginIsolated === true);

const isShared = (array) => typeof SharedArrayBuffer === 'function' && array?.buffer instanceof SharedArrayBuffer;

// A column's output in shared memory: the caller's `into` arrays where they are shared already.
// Without a caller's validity none is made up front: a worker that finds nulls in its chunk
// sends its chunk's validity back (most OPTIONAL columns have none to send). A caller's shared
// validity of an OPTIONAL column is filled with 1s by the workers, each its chunk's rows (here it
// took a millisecond of a 15 ms read, on the calling thread before any worker started); a
// REQUIRED column's, which no worker sees, here.
function sharedOutput(column, numRows, into = {}) {
  const Type = column.type === 'FLOAT' ? Float32Array : Float64Array;
  const values = into.values ?? new Type(new SharedArrayBuffer(numRows * Type.BYTES_PER_ELEMENT));
  const output = column.maxDef > 0 ? outputFor : outputInto;
  return { ...output(column, numRows, { values, valid: into.valid }), shared: true };
}

// The chunk's bytes, fetched here (prefetched ones first), for a worker that cannot read the source.
async function chunkBytes(ctx, chunk, where) {
  let range;
  try {
    range = chunkRange(chunk, ctx.fileSize);
  } catch (msg) {
    throw columnError(where, msg);
  }
  const key = `${range.start}:${range.end}`;
  const ahead = ctx.prefetched?.get(key);
  ctx.prefetched?.delete(key);
  return { bytes: (await ahead) ?? (await ctx.file.read(range.start, range.end)), base: range.start };
}

/**
 * Reads FLOAT / DOUBLE columns like readFloatColumns, with the chunks decoded in `pool`.
 * @param {{run: Function}} pool a numdecode/worker pool
 * @param {string|null} path the local path the workers may open themselves, or null
 */
export async function readFloatColumnsInPool(pool, ctx, columns, groups, numRows, into, path, signal) {
  const share = canShare();
  // Shared output unless one of the caller's arrays is not shared (then the workers send their rows
  // back and they are copied into place here, values and validity alike).
  const outputs = new Map(
    columns.map((c) => {
      const given = into[c.name] ?? {};
      const shared = share && [given.values, given.valid].every((a) => a === undefined || isShared(a));
      return [c.name, shared ? sharedOutput(c, numRows, given) : outputInto(c, numRows, given, ctx.name)];
    }),
  );
  const local = []; // partial reads through an OffsetIndex: small, read here
  const jobs = chunkTasks(columns, groups).map(async (task) => {
    const { group, column, dst } = task;
    const chunk = ctx.metadata.row_groups[group.index].columns[column.leafIndex];
    if (path === null && usesOffsetIndex(chunk, group)) return local.push(task);
    const out = outputs.get(column.name);
    const rows = group.selEnd - group.selStart;
    const shared = out.shared === true;
    const job = {
      name: ctx.name,
      fileSize: ctx.fileSize,
      chunk,
      column: { name: column.name, leafIndex: column.leafIndex, type: column.type, maxDef: column.maxDef },
      group: { index: group.index, start: group.start, rows: group.rows, selStart: group.selStart, selEnd: group.selEnd },
      // (a validity made here since, at a null of a chunk read here, is not shared: not sent)
      output: shared ? { values: out.values.subarray(dst, dst + rows), valid: isShared(out.valid) ? out.valid.subarray(dst, dst + rows) : null } : null,
    };
    let source = path;
    if (source === null) {
      const fetched = await chunkBytes(ctx, chunk, { file: ctx.name, column: column.name, rowGroup: group.index });
      source = fetched.bytes;
      job.base = fetched.base;
    }
    const result = await pool.run({ format: 'parquet', op: 'readChunk', args: [source, job] }, { signal });
    out.nulls += result.nulls;
    if (!shared) out.values.set(result.values, dst);
    if (result.valid) validityOf(out, { file: ctx.name, column: column.name }).set(result.valid, dst); // (1s elsewhere)
    return undefined;
  });
  const settled = await Promise.allSettled(jobs);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  if (local.length) {
    // (rows no worker filled: a shared validity is all present before the pages' nulls; a plain
    // one was filled whole by outputInto)
    for (const { column, group, dst } of local) {
      const out = outputs.get(column.name);
      if (out.shared) out.valid?.fill(1, dst, dst + group.selEnd - group.selStart);
    }
    await readTasks(ctx, local, outputs);
  }
  return finishedOutputs(outputs);
}
