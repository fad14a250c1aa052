// numdecode's read of a Zarr array, or of a selection of it, as zarrita's get returns it:
//
//   import * as zarr from 'zarrita';
//   import { read } from 'numdecode/zarr';
//   const arr = await zarr.open(store, { kind: 'array' });
//   const { data, shape, stride } = await read(arr, { selection: [0, null, zarr.slice(10, 20)] });
//
// zarrita opens the store and the array; this plans which chunks the selection needs, fetches
// them a bounded number at a time (shards: each index once, chunks in coalesced ranges), and
// decodes each pcodec chunk in wasm straight into its place in the output: one copy per output
// row, no chunk-sized JS array. With a worker pool the workers decode into one SharedArrayBuffer
// output (js/zarr/pool-decode.js). Chunks of other codecs go through zarrita's codec pipeline.
import { outputBytesLimit, requireAttached } from '../bytes.js';
import { CODES, ZarrError, abortError } from '../errors.js';
import { ensureFormat, getModule } from '../wasm/load.js';
import { allowManyListeners, joinSignals } from '../io/signals.js';
import { malloc } from '../wasm/heap.js';
import { wasmBlockView } from '../wasm/views.js';
import { boxParams, decodeBox, releaseBoxScratch } from './chunk-decode.js';
import { fetchTasks, unreadTasks } from './fetch.js';
import { arrayLayout } from './layout.js';
import { LocalStore, localFolderOf } from './local-store.js';
import { fillBox, outputGeometry, packDecodedChunk, placeBox } from './place.js';
import { dimensionParts, normalizeSelection, partCount, selectionShape } from './plan.js';
import { poolDecoder } from './pool-decode.js';
import { runTasks } from './schedule.js';
import { chunkRows, shardSlabPlan, slabAssembler, slabPlan, tiledSlab, wholeOutputPlan } from './slab.js';

/** Chunk fetches (or shard ranges) in flight at once, by default. */
export const DEFAULT_CONCURRENCY = 16;
// Over a network (any store but numdecode's LocalStore, whose reads do not wait) the link's latency
// sets the pace, not the decoder: at 50 ms a request, tp's 320 chunk files read in 1.4 s with 16
// in flight and in 0.7 s with 64 (zarrita.get, which asks for every chunk at once, 0.7 s). Bounded
// so that the chunks in flight hold at most about this many bytes (their decoded size: pcodec's
// compressed chunks are smaller); shards keep 16, their ranges are up to 8 MiB each already.
const NETWORK_CONCURRENCY = 64;
const NETWORK_BYTES_IN_FLIGHT = 32 << 20;

function defaultConcurrency(store, layout) {
  if (layout.shard || typeof store?.readView === 'function') return DEFAULT_CONCURRENCY;
  const chunkBytes = layout.chunkShape.reduce((a, b) => a * b, 1) * layout.bytesPerElement;
  return Math.max(DEFAULT_CONCURRENCY, Math.min(NETWORK_CONCURRENCY, Math.floor(NETWORK_BYTES_IN_FLIGHT / chunkBytes)));
}

const READ_OPTIONS = new Set(['selection', 'pool', 'workers', 'into', 'signal', 'onProgress', 'concurrency', 'init', 'maxOutputBytes']);

// readView's output is this thread's wasm memory: no workers, no caller's array.
const VIEW_OPTIONS = new Set(['selection', 'signal', 'onProgress', 'concurrency', 'init', 'maxOutputBytes']);

function checkOptions(options, allowed, what) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${what}: options must be an object`);
  for (const key of Object.keys(options)) {
    if (!allowed.has(key)) throw new TypeError(`${what}: unknown option ${JSON.stringify(key)} (one of ${[...allowed].join(', ')})`);
  }
  const { concurrency, workers, pool, onProgress, maxOutputBytes } = options;
  outputBytesLimit('zarr read', maxOutputBytes);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
    throw new TypeError(`zarr read: options.concurrency must be a positive integer, got ${concurrency}`);
  }
  if (workers !== undefined && !(Number.isInteger(workers) && workers >= 1)) {
    throw new TypeError(`zarr read: options.workers must be a positive integer, got ${workers}`);
  }
  if (workers !== undefined && pool !== undefined) throw new TypeError('zarr read: pass options.workers or options.pool, not both');
  if (pool !== undefined && typeof pool?.run !== 'function') throw new TypeError('zarr read: options.pool must be a worker pool from numdecode/worker');
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError('zarr read: options.onProgress must be a function');
}

// zarrita's output strides: the array's stored order kept over the dimensions the selection keeps.
function projectOrder(order, outputAxes) {
  const rank = new Map(outputAxes.map((axis, i) => [axis, i]));
  return order.filter((axis) => rank.has(axis)).map((axis) => rank.get(axis));
}

function stridesFor(shape, order) {
  const stride = new Array(shape.length);
  let step = 1;
  for (let i = order.length - 1; i >= 0; i--) {
    stride[order[i]] = step;
    step *= shape[order[i]];
  }
  return stride;
}

const sharedMemory = () =>
  typeof SharedArrayBuffer === 'function' && (typeof process === 'object' || globalThis.crossOriginIsolated === true);

// The selection's bytes against options.maxOutputBytes (checked with the other options), before
// anything is allocated or read: metadata may claim any shape, and a whole-array read of it must
// not fail in the allocator.
function checkOutputBytes(what, layout, shape, size, maxOutputBytes) {
  const limit = outputBytesLimit(what, maxOutputBytes);
  const bytes = size * layout.bytesPerElement;
  if (bytes > limit) {
    throw new ZarrError(`${what}: array ${layout.path}: the selection (shape [${shape.join(', ')}]) is ${bytes} bytes of ${layout.pcoDtype ?? 'values'}, over maxOutputBytes=${limit}`, {
      code: CODES.OUTPUT_LIMIT,
      array: layout.path,
      dataset: layout.path,
    });
  }
}

function allocate(layout, size, into, shared) {
  if (into !== undefined) {
    requireAttached('zarr read: options.into', into);
    const ok = into instanceof layout.Output || (layout.pcoDtype === 'f16' && into instanceof Uint16Array);
    if (!ok || into.length !== size) {
      throw new TypeError(`zarr read: options.into must be a ${layout.Output.name} of ${size} values, got ${into?.constructor?.name ?? typeof into} of ${into?.length}`);
    }
  }
  const bytes = size * layout.bytesPerElement;
  try {
    const data = into ?? new layout.Output(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes), 0, size);
    new Uint8Array(data.buffer, data.byteOffset, bytes); // what the chunks are placed through
    return { data, fresh: into === undefined };
  } catch (err) {
    // V8's RangeErrors ("Array buffer allocation failed"; "Invalid typed array length" past its
    // largest typed array, 4 GiB of bytes in Node 20) name neither the array nor the size.
    throw new ZarrError(`zarr read: array ${layout.path}: cannot hold ${bytes} bytes of output (${err.message}; a selection, or maxOutputBytes, bounds a read)`, {
      code: CODES.OUTPUT_LIMIT,
      array: layout.path,
      dataset: layout.path,
      cause: err,
    });
  }
}

const isZeroBits = (value) => Object.is(value, 0) || value === 0n;

function chunkError(layout, key, err) {
  if (err?.code === CODES.ABORTED || err?.name === 'AbortError') return err;
  return new ZarrError(`zarr read: array ${layout.path}: chunk ${key}: ${err?.message ?? err}`, {
    code: err?.code ?? CODES.BAD_DATA,
    file: key,
    array: layout.path,
    dataset: layout.path,
    cause: err,
  });
}

// zarrita's codec pipeline, for chunks whose codecs numdecode does not decode itself. zarrita
// keeps it on the array under a symbol of its own.
function zarritaPipeline(array, layout) {
  const symbol = Object.getOwnPropertySymbols(array).find((s) => s.description === 'zarrita.context');
  const codec = symbol ? array[symbol]?.codec : undefined;
  if (typeof codec?.decode !== 'function') {
    throw new ZarrError(`zarr read: array ${layout.path}: its codecs are not pcodec, and this zarrita does not show its codec pipeline; read it with zarrita's get`, {
      code: CODES.UNSUPPORTED,
      array: layout.path,
      dataset: layout.path,
    });
  }
  return codec;
}

/**
 * Reads an array, or a selection of it, into one typed array.
 * @param {import('zarrita').Array<any, any>} array opened with zarrita (zarr.open)
 * @param {{selection?: (null|number|{start?: number|null, stop?: number|null, step?: number|null})[] | null,
 *   pool?: import('../worker/index.js').WorkerPool, workers?: number, into?: ArrayBufferView,
 *   signal?: AbortSignal, onProgress?: (p: {done: number, total: number, unit: 'chunks', chunks: number, totalChunks: number, bytes: number}) => void,
 *   concurrency?: number, init?: object, maxOutputBytes?: number}} [options] maxOutputBytes: refuse
 *   (ERR_OUTPUT_LIMIT) a selection of more bytes, before anything is allocated or fetched
 * @returns {Promise<{data: ArrayBufferView, shape: number[], stride: number[]}>} as zarrita's get
 *   (data in the array's stored order, which stride describes); a selection of single indexes on
 *   every dimension gives shape [] and one value
 */
export function read(array, options = {}) {
  return guarded('zarr read', READ_OPTIONS, array, options, (aborted) => readArray(array, options, aborted));
}

// What read() and readView() check before reading, and how a read ends once its caller aborted:
// body(aborted) reads.
async function guarded(what, allowed, array, options, body) {
  checkOptions(options, allowed, what);
  const { signal } = options;
  const aborted = () => abortError(signal, `${what} of ${array?.path}`);
  if (signal?.aborted) throw aborted();
  if (typeof array?.store?.get !== 'function') {
    throw new TypeError(`${what}: pass an array opened with zarrita (zarr.open(store, { kind: "array" }))`);
  }
  if (!Array.isArray(array.shape)) {
    // zarrita opened it, from metadata without a shape
    throw new ZarrError(`${what}: array ${array.path}: its metadata gives no shape (${JSON.stringify(array.shape)})`, { code: CODES.BAD_DATA, array: array.path, dataset: array.path });
  }
  try {
    return await body(aborted);
  } catch (err) {
    // Whatever failed once the caller aborted (a store's own AbortError, say), the read was aborted.
    if (signal?.aborted) throw aborted();
    throw err;
  }
}

// The output's shape and zarrita's strides for a selection of the array.
function outputOf(layout, selection) {
  const dims = normalizeSelection(selection, layout.shape);
  const shape = selectionShape(dims);
  const outputAxes = dims.flatMap((d, axis) => (d.index === undefined ? [axis] : []));
  const outOrder = projectOrder(layout.order, outputAxes);
  return { dims, shape, outputAxes, outOrder, stride: stridesFor(shape, outOrder), size: shape.reduce((a, b) => a * b, 1) };
}

/**
 * Reads an array of pcodec chunks, or a selection of it, as a zero-copy view in the Pco module's
 * memory: each chunk decodes straight into its place there, and no output is copied out. The view
 * has `data`, `shape`, `stride` as read() gives them, plus `dtype`, `length`, `byteLength`,
 * `released` and `release()` (also `Symbol.dispose`): `data` is valid until release(), and
 * re-created after the module's memory grows. While it is live the module keeps its memory
 * (releaseMemory() waits for it); on the calling thread only, so no pool, workers or into.
 * @param {import('zarrita').Array<any, any>} array opened with zarrita (zarr.open)
 * @param {{selection?: (null|number|{start?: number|null, stop?: number|null, step?: number|null})[] | null,
 *   signal?: AbortSignal, onProgress?: (p: {done: number, total: number, unit: 'chunks', chunks: number, totalChunks: number, bytes: number}) => void,
 *   concurrency?: number, init?: object}} [options]
 */
export function readView(array, options = {}) {
  return guarded('zarr readView', VIEW_OPTIONS, array, options, (aborted) => readArrayView(array, options, aborted));
}

async function readArrayView(array, options, aborted) {
  const { signal, init } = options;
  let view = null;
  try {
    const layout = await arrayLayout(array, { signal });
    if (!layout.pco) {
      throw new ZarrError(`zarr readView: array ${layout.path}: its chunks are not pcodec, which readView decodes in place; read it with read()`, {
        code: CODES.UNSUPPORTED,
        array: layout.path,
        dataset: layout.path,
      });
    }
    const out = outputOf(layout, options.selection ?? null);
    checkOutputBytes('zarr readView', layout, out.shape, out.size, options.maxOutputBytes);
    await ensureFormat('pco', init);
    const mod = getModule('pco');
    const byteLength = out.size * layout.bytesPerElement;
    const address = byteLength === 0 ? 0 : malloc(mod, byteLength);
    if (byteLength > 0 && address === 0) {
      throw new ZarrError(`zarr readView: array ${layout.path}: out of wasm memory for ${byteLength} bytes of output`, { code: CODES.OUTPUT_LIMIT, array: layout.path, dataset: layout.path });
    }
    // A view from the start: it holds the module's memory while the read fills it across awaits.
    view = wasmBlockView('pco', 'zarr.readView', layout.Output, address, out.size, () => byteLength > 0 && mod._free(address), {
      dtype: layout.pcoDtype,
      shape: out.shape,
      stride: out.stride,
      length: out.size,
      byteLength,
    });
    const target = { address, byteLength, Type: layout.Output };
    if (out.size > 0) await readInto(array, layout, { ...out, data: null, target, fresh: false, signal, onProgress: options.onProgress, init, aborted, concurrency: options.concurrency });
    return view;
  } catch (err) {
    view?.release();
    throw err;
  }
}

async function readArray(array, options, aborted) {
  const { selection = null, signal, onProgress, into, init } = options;
  const layout = await arrayLayout(array, { signal });
  const { dims, shape, outputAxes, outOrder, stride, size } = outputOf(layout, selection);
  checkOutputBytes('zarr read', layout, shape, size, options.maxOutputBytes);

  let pool = options.pool;
  const ownPool = options.workers !== undefined && layout.pco;
  if (ownPool) {
    const { createWorkerPool } = await import('../worker/index.js');
    pool = await createWorkerPool({ size: options.workers, init });
  }
  try {
    if (!layout.pco) pool = undefined; // zarrita's pipeline runs here
    const { data, fresh } = allocate(layout, size, into, pool !== undefined && sharedMemory());
    if (size === 0) return { data, shape, stride };
    await readInto(array, layout, { dims, shape, outputAxes, outOrder, data, fresh, pool, signal, onProgress, init, aborted, concurrency: options.concurrency });
    return { data, shape, stride };
  } finally {
    if (ownPool) await pool.terminate();
  }
}

// data: the output; or, for readView, null and target: the output in the Pco module's memory.
async function readInto(array, layout, { dims, shape, outputAxes, outOrder, data, target, fresh, pool, signal, onProgress, init, aborted, concurrency }) {
  // Geometry in stored order: there both the output and each packed box are C-contiguous.
  const geometry = outputGeometry(outOrder.map((i) => shape[i]));
  const storedOutputAxes = outOrder.map((i) => outputAxes[i]);
  const width = layout.bytesPerElement;
  const outBytes = data && new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const placement = (parts) => ({
    base: storedOutputAxes.reduce((sum, axis, k) => sum + parts[axis].out * geometry.strides[k], 0),
    counts: storedOutputAxes.map((axis) => parts[axis].count),
  });
  const extent = layout.order.map((a) => layout.chunkShape[a]);
  // Most chunks of a read are whole (all but the selection's edges): they share one box, rather
  // than a box (and four arrays to make it) a chunk. Boxes are read, never written.
  const wholeBox = boxParams(extent, extent.map(() => 0), extent.map(() => 1), extent);
  const isWhole = (parts) => layout.order.every((a) => parts[a].start === 0 && parts[a].step === 1 && parts[a].count === layout.chunkShape[a]);
  const boxOf = (parts) =>
    isWhole(parts)
      ? wholeBox
      : boxParams(
          extent,
          layout.order.map((a) => parts[a].start),
          layout.order.map((a) => parts[a].step),
          layout.order.map((a) => parts[a].count),
        );

  const parts = dimensionParts(dims, layout.chunkShape);
  const totalChunks = partCount(parts);
  let chunksDone = 0;
  let bytesFetched = 0;
  const progress = (bytes) => {
    chunksDone++;
    bytesFetched += bytes;
    // done / total / unit: the vocabulary's progress, as BPCells gives it; chunks / totalChunks as before
    onProgress?.({ done: chunksDone, total: totalChunks, unit: 'chunks', chunks: chunksDone, totalChunks, bytes: bytesFetched });
  };
  const skipFill = fresh && isZeroBits(layout.fill); // a fresh buffer is zeros already
  const missing = (item) => {
    if (!skipFill) {
      const { base, counts } = placement(item.parts);
      fillBox(data, geometry, base, counts, layout.fill);
    }
    progress(0);
  };

  let sink;
  let finish = async () => {};
  let drain = async () => {};
  // A local folder behind list()'s or openArray()'s metadata layers is read as one (its chunks lent).
  const store = localFolderOf(array.store) ?? array.store;
  // The store's requests get a signal of the read's own: a read that fails stops what it has in
  // flight (fetches being retried, requests queued) instead of leaving them to run out.
  const stop = new AbortController();
  const fetching = joinSignals(signal, stop.signal);
  allowManyListeners(fetching.signal);
  let tasks = () => fetchTasks(store, layout, parts, sink, fetching.signal);
  if (pool !== undefined) {
    // From a local folder the workers read the chunks themselves: the chunk files, or the ranges
    // of the shards that each shard's index (read here) names.
    const root = store instanceof LocalStore ? store.root : undefined;
    // Chunks go in C order, a shard's one after another.
    const slabs =
      root === undefined ? null : layout.shard ? shardSlabPlan(layout, parts, geometry, storedOutputAxes) : slabPlan(layout, parts, geometry, storedOutputAxes, true);
    const decoder = poolDecoder(pool, { layout, geometry, data, outBytes, signal, placed: progress, root, missing, slabs });
    // A batch fails as a whole; the worker's error names the chunk that failed.
    const failed = (err) => chunkError(layout, err?.file ?? layout.path, err);
    sink = {
      chunk: (item, bytes) => decoder.decode(item.key, bytes, boxOf(item.parts), placement(item.parts)).catch((err) => Promise.reject(failed(err))),
      unread: (item) => decoder.decodeUnread(item, boxOf(item.parts), placement(item.parts)).catch((err) => Promise.reject(failed(err))),
      missing,
    };
    if (root !== undefined && layout.shard) {
      sink.located = (item, shard, entry) => decoder.decodeLocated(item, shard, entry, boxOf(item.parts), placement(item.parts)).catch((err) => Promise.reject(failed(err)));
    } else if (root !== undefined) {
      tasks = () => unreadTasks(layout, parts, sink);
    }
    drain = () => decoder.drain().catch((err) => Promise.reject(failed(err)));
    finish = async () => decoder.close();
  } else if (layout.pco) {
    await ensureFormat('pco', init);
    const details = { array: layout.path, dataset: layout.path };
    // A local folder lends its chunks in order: they can be assembled into slabs (js/zarr/slab.js),
    // also for a readView (cheaper than placing each chunk's rows straight into memory out of
    // cache). Otherwise a readView's output is its one slab: every chunk decodes into it.
    const rows = slabPlan(layout, parts, geometry, storedOutputAxes, typeof store.readView === 'function');
    const plan = target ? (rows ?? wholeOutputPlan(layout, geometry, storedOutputAxes)) : rows;
    const slabs = plan && slabAssembler(plan, geometry, data, layout.pcoDtype, layout.fill, target);
    // Without those, a shard range's chunks that tile a box of the output go out as one slab.
    const tiles = slabs ? null : slabAssembler({ axes: storedOutputAxes, rank: layout.shape.length }, geometry, data, layout.pcoDtype, layout.fill);
    sink = {
      consumesAtOnce: true, // decodeBox copies the bytes into wasm memory before it returns
      chunk(item, bytes) {
        if (signal?.aborted) return;
        details.file = item.key;
        let packed;
        try {
          if (slabs) slabs.chunk(plan.of(item.parts), bytes, boxOf(item.parts), details);
          else packed = decodeBox(bytes, layout.pcoDtype, boxOf(item.parts), details);
        } catch (err) {
          throw chunkError(layout, item.key, err);
        }
        if (!slabs) {
          const { base, counts } = placement(item.parts);
          placeBox(outBytes, width, geometry, base, counts, packed);
        }
        progress(bytes.length);
      },
      // A shard's range read together: each row of its chunks into one slab where they tile a box of the output.
      range(chunks) {
        if (signal?.aborted) return;
        for (const row of tiles ? chunkRows(storedOutputAxes, chunks, (c) => c.item.parts) : [chunks]) {
          const tiled = tiles && tiledSlab(layout, geometry, storedOutputAxes, row.map((c) => c.item.parts));
          if (!tiled) {
            for (const c of row) this.chunk(c.item, c.bytes);
            continue;
          }
          row.forEach(({ item, bytes }, k) => {
            details.file = item.key;
            try {
              tiles.chunk({ base: tiled.base, counts: tiled.counts, offset: tiled.offsets[k] }, bytes, boxOf(item.parts), details);
            } catch (err) {
              throw chunkError(layout, item.key, err);
            }
          });
          tiles.end();
          for (const { bytes } of row) progress(bytes.length);
        }
      },
      missing: slabs
        ? (item) => {
            slabs.missing(plan.of(item.parts), placement(item.parts).counts);
            progress(0);
          }
        : missing,
    };
    drain = async () => slabs?.end();
    finish = async () => {
      slabs?.close();
      tiles?.close();
      releaseBoxScratch();
    };
  } else {
    const pipeline = zarritaPipeline(array, layout);
    sink = {
      async chunk(item, bytes) {
        let chunk;
        try {
          chunk = await pipeline.decode(bytes);
        } catch (err) {
          throw chunkError(layout, item.key, err);
        }
        if (signal?.aborted) return;
        const { base, counts } = placement(item.parts);
        placeBox(outBytes, width, geometry, base, counts, packDecodedChunk(chunk, layout.order, item.parts));
        progress(bytes.length);
      },
      missing,
    };
  }
  const limit = concurrency ?? defaultConcurrency(store, layout);
  try {
    await runTasks(tasks(), limit, signal, aborted);
    await drain();
  } catch (err) {
    stop.abort(err);
    throw err;
  } finally {
    fetching.dispose();
    await finish();
  }
  if (signal?.aborted) throw aborted();
}
