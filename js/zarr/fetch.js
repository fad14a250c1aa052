// The fetching side of a read: the tasks that bring a selection's chunk bytes in from the store.
// Unsharded arrays: one get() per chunk. Sharded arrays: each shard's index read once (from the
// end or the start of the shard, as its metadata says), then the chunks the selection needs in
// coalesced ranges. Each task hands what it fetched to the sink (decode and place) before it
// ends, so that a bounded number of tasks in flight bounds the bytes held (js/zarr/schedule.js).
import { CODES, NumdecodeError, ZarrError } from '../errors.js';
import { mergeRanges } from '../io/merge.js';
import { crc32c } from './crc32c.js';
import { readAhead } from '../io/read-ahead.js';
import { chunkParts, partCount, shardGroups } from './plan.js';

// Chunks of one shard closer than this are read in one request: a round trip costs more than the gap.
export const RANGE_GAP_BYTES = 64 * 1024;
// A coalesced range stops growing here, so that a few ranges in flight hold a bounded number of bytes.
export const MAX_RANGE_BYTES = 8 * 1024 * 1024;
// A shard index entry naming more bytes than this for one chunk is damaged: no codec expands a
// chunk's values past twice their size and a header (pcodec's worst case is barely over 1x), and
// the read would otherwise allocate what the entry claims before finding the shard shorter.
const chunkByteBound = (layout) => Math.min(2 ** 31, 2 * layout.chunkShape.reduce((a, b) => a * b, 1) * layout.bytesPerElement + (1 << 20));
const NO_CHUNK = 0xffffffff; // both halves of 2^64 - 1: the chunk is not stored

/**
 * One chunk of the selection: its coordinates, its share of each dimension (DimPart), and the key
 * that names it in errors (its object, or its shard and place there).
 * @typedef {{coords: number[], parts: import('./plan.js').DimPart[], key: string}} ChunkItem
 */

/**
 * What receives the fetched chunks: chunk(item, bytes) for a stored chunk (it may return a promise:
 * the task waits for it), missing(item) for one that is not stored (fill value). consumesAtOnce:
 * chunk() is synchronous and keeps nothing of `bytes`, which may then be lent (a reused buffer).
 * range(chunks): given, a sink that consumes at once gets the chunks of a shard's range together,
 * [{item, bytes}] (lent), instead of one chunk() each.
 * located(item, shardKey, {offset, length} | null): given, a shard's chunks are not read here but
 * handed over where they lie in the shard, or null when not stored (workers that read a local
 * folder themselves).
 * @typedef {{chunk: (item: ChunkItem, bytes: Uint8Array) => void | Promise<void>, missing: (item: ChunkItem) => void,
 *   consumesAtOnce?: boolean, range?: (chunks: {item: ChunkItem, bytes: Uint8Array}[]) => void,
 *   located?: (item: ChunkItem, shardKey: string, entry: {offset: number, length: number} | null) => Promise<void>}} ChunkSink
 */

function fetchError(layout, key, message, cause, code = CODES.BAD_DATA) {
  return new ZarrError(`zarr read: array ${layout.path}: ${key}: ${message}`, { code, file: key, array: layout.path, dataset: layout.path, cause });
}

// More bytes than a range asked for: a store over a server that ignores Range hands back the whole
// file (zarrita's FetchStore does), and its first bytes are not the range: refused, not decoded.
function longAnswer(layout, key, got, asked) {
  return fetchError(layout, key, `the store answered ${got} bytes for ${asked} (a server that ignores Range requests?)`, undefined, CODES.NETWORK);
}

// The store's own errors (HTTP, file system) carry what happened; they gain the key and the array.
async function storeCall(layout, key, promise) {
  try {
    return await promise;
  } catch (err) {
    if (err?.name === 'AbortError' || err?.code === CODES.ABORTED) throw err;
    // numdecode's own (a LocalStore's directory or FIFO, an IoError): its code kept, the array added
    if (err instanceof NumdecodeError) {
      if (err instanceof ZarrError && err.array) throw err;
      throw new ZarrError(`zarr read: array ${layout.path}: ${key}: ${err.message}`, { code: err.code, file: key, array: layout.path, dataset: layout.path, status: err.status, cause: err });
    }
    throw fetchError(layout, key, `the store could not read it (${err?.message ?? err})`, err, CODES.NETWORK);
  }
}

const item = (parts, key) => ({ coords: parts.map((p) => p.chunk), parts, key });

// A store that can lend a chunk's bytes (LocalStore.readView: a reused buffer) to a sink that is
// done with them when chunk() returns: read and consumed with no await between, so that no other
// task reads into the buffer meanwhile.
function lentChunk(store, layout, key, chunk, sink, signal, ahead) {
  let bytes;
  try {
    signal?.throwIfAborted();
    bytes = ahead ? ahead.next(key) : store.readView(key);
  } catch (err) {
    return storeCall(layout, key, Promise.reject(err));
  }
  if (bytes === undefined) sink.missing(item(chunk, key));
  else sink.chunk(item(chunk, key), bytes);
  return undefined;
}

// A chunk's store key, from its parts (one per axis).
const keyOf = (layout, chunk) => layout.chunkKey(chunk.map((p) => p.chunk));

function* chunkKeys(layout, parts) {
  for (const chunk of chunkParts(parts)) yield keyOf(layout, chunk);
}

function* chunkTasks(store, layout, parts, sink, signal) {
  const lend = sink.consumesAtOnce === true && typeof store.readView === 'function';
  // A local folder's files (LocalStore: fileOf) are read ahead on a thread of their own, in this
  // order: each lent task runs whole as it starts, so they are asked for in this order too.
  const ahead =
    lend && typeof store.fileOf === 'function' && store.readAhead !== false
      ? readAhead(chunkKeys(layout, parts), partCount(parts), (key) => store.fileOf(key), (key) => store.readView(key))
      : null;
  try {
    for (const chunk of chunkParts(parts)) {
      const key = keyOf(layout, chunk);
      yield async () => {
        if (lend) return lentChunk(store, layout, key, chunk, sink, signal, ahead);
        const bytes = await storeCall(layout, key, store.get(key, { signal }));
        if (bytes === undefined || bytes === null) sink.missing(item(chunk, key));
        else await sink.chunk(item(chunk, key), bytes);
      };
    }
  } finally {
    ahead?.close(); // also when the read fails or is aborted (runTasks ends the generator)
  }
}

// The shard's index ({offset, length} per chunk, C order of the chunk's place in the shard), or null
// when the shard is not stored. Without getRange the whole shard is read (and kept for its chunks).
async function readIndex(store, layout, key, signal) {
  const { indexBytes, indexLocation } = layout.shard;
  let bytes;
  let whole = null;
  if (typeof store.getRange === 'function') {
    const range = indexLocation === 'end' ? { suffixLength: indexBytes } : { offset: 0, length: indexBytes };
    bytes = await storeCall(layout, key, store.getRange(key, range, { signal }));
  } else {
    whole = await storeCall(layout, key, store.get(key, { signal }));
    if (whole) bytes = indexLocation === 'end' ? whole.subarray(whole.length - indexBytes) : whole.subarray(0, indexBytes);
  }
  if (bytes === undefined || bytes === null) return null;
  if (!whole && bytes.length > indexBytes) throw longAnswer(layout, key, bytes.length, `the ${indexBytes} of its shard index`);
  if (bytes.length < indexBytes) {
    throw fetchError(layout, key, `its shard index needs ${indexBytes} bytes but the shard has only ${whole?.length ?? bytes.length}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, indexBytes);
  const { count } = layout.shard;
  if (indexBytes === 16 * count + 4) {
    // the crc32c index codec: a damaged index names other chunks' bytes (wrong values, no error)
    const stored = view.getUint32(16 * count, true);
    const computed = crc32c(bytes.subarray(0, 16 * count));
    if (computed !== stored) {
      throw fetchError(layout, key, `its shard index is damaged: its CRC-32C is ${computed.toString(16).padStart(8, '0')}, the index stores ${stored.toString(16).padStart(8, '0')}`);
    }
  }
  const maxChunkBytes = chunkByteBound(layout);
  const entries = [];
  for (let i = 0; i < count; i++) {
    const [offLo, offHi, lenLo, lenHi] = [0, 4, 8, 12].map((b) => view.getUint32(16 * i + b, true));
    if (offLo === NO_CHUNK && offHi === NO_CHUNK && lenLo === NO_CHUNK && lenHi === NO_CHUNK) {
      entries.push(null);
      continue;
    }
    // A damaged entry fails the chunk it names, when that chunk is read; the shard's others still read.
    const offset = offHi * 2 ** 32 + offLo;
    const length = lenHi * 2 ** 32 + lenLo;
    entries.push({ offset, length, damaged: !Number.isSafeInteger(offset) || length > maxChunkBytes, at: i });
  }
  return { entries, whole };
}

// Where a chunk sits in its shard's index: C order of its coordinates inside the shard.
function indexEntry(coords, chunksPerShard) {
  let at = 0;
  for (let d = 0; d < coords.length; d++) at = at * chunksPerShard[d] + (coords[d] % chunksPerShard[d]);
  return at;
}

// Coalesced ranges over the stored chunks, none larger than MAX_RANGE_BYTES unless one chunk is.
function coalesce(stored) {
  const groups = [];
  for (const g of mergeRanges(stored.map((s) => [s.entry.offset, s.entry.offset + s.entry.length]), RANGE_GAP_BYTES)) {
    let current = null;
    for (const i of g.members.sort((a, b) => stored[a].entry.offset - stored[b].entry.offset)) {
      const { offset, length } = stored[i].entry;
      if (current && Math.max(current.end, offset + length) - current.start > MAX_RANGE_BYTES) current = null;
      if (!current) groups.push((current = { start: offset, end: offset + length, members: [] }));
      current.end = Math.max(current.end, offset + length);
      current.members.push(stored[i]);
    }
  }
  return groups;
}

// A shard's range read into the read's one buffer (LocalStore.readInto) and its chunks handed to a
// sink that consumes them at once, with no await between: no fresh array per range (a whole read of
// a sharded array otherwise holds every shard in flight at once, up to `concurrency` of them).
function lentRange(store, layout, key, range, sink, lent, signal) {
  const length = range.end - range.start;
  if (lent.buffer.length < length) lent.buffer = new Uint8Array(length);
  const bytes = lent.buffer.subarray(0, length);
  let got;
  try {
    signal?.throwIfAborted();
    got = store.readInto(key, range.start, bytes);
  } catch (err) {
    return storeCall(layout, key, Promise.reject(err));
  }
  if (got === undefined || got < length) {
    throw fetchError(layout, key, `bytes ${range.start}-${range.end - 1} that its shard index names are not in the shard`);
  }
  const chunks = range.members.map(({ chunk, entry }) => ({ item: chunk, bytes: bytes.subarray(entry.offset - range.start, entry.offset - range.start + entry.length) }));
  if (typeof sink.range === 'function') sink.range(chunks);
  else for (const { item: chunk, bytes: chunkBytes } of chunks) sink.chunk(chunk, chunkBytes);
  return undefined;
}

function shardTask(store, layout, group, sink, signal, lent) {
  const key = layout.chunkKey(group.shard);
  return async () => {
    const index = await readIndex(store, layout, key, signal);
    // A sink whose workers read the shard themselves (a local folder) gets where each chunk lies,
    // or null for one not stored, in the shard's order: the workers fill those (a slab's holes).
    if (typeof sink.located === 'function') {
      return group.chunks.map((parts) => {
        const coords = parts.map((p) => p.chunk);
        const chunk = item(parts, `${key} (chunk ${coords.join(',')})`);
        const entry = index?.entries[indexEntry(coords, layout.shard.chunksPerShard)] ?? null;
        if (entry?.damaged) throw fetchError(layout, key, `its shard index entry ${entry.at} (offset ${entry.offset}, length ${entry.length}) is damaged`);
        return () => sink.located(chunk, key, entry);
      });
    }
    const stored = [];
    for (const parts of group.chunks) {
      const coords = parts.map((p) => p.chunk);
      const chunk = item(parts, `${key} (chunk ${coords.join(',')})`);
      const entry = index?.entries[indexEntry(coords, layout.shard.chunksPerShard)] ?? null;
      if (entry === null) sink.missing(chunk);
      else if (entry.damaged) throw fetchError(layout, key, `its shard index entry ${entry.at} (offset ${entry.offset}, length ${entry.length}) is damaged`);
      else stored.push({ chunk, entry });
    }
    // The ranges become tasks of their own: every range of every shard goes out together.
    return coalesce(stored).map((range) => async () => {
      if (lent && !index.whole) return lentRange(store, layout, key, range, sink, lent, signal);
      const bytes = index.whole
        ? index.whole.subarray(range.start, range.end)
        : await storeCall(layout, key, store.getRange(key, { offset: range.start, length: range.end - range.start }, { signal }));
      if (bytes && !index.whole && bytes.length > range.end - range.start) throw longAnswer(layout, key, bytes.length, `bytes ${range.start}-${range.end - 1}`);
      if (!bytes || bytes.length < range.end - range.start) {
        throw fetchError(layout, key, `bytes ${range.start}-${range.end - 1} that its shard index names are not in the shard`);
      }
      for (const { chunk, entry } of range.members) {
        const at = entry.offset - range.start;
        await sink.chunk(chunk, bytes.subarray(at, at + entry.length));
      }
    });
  };
}

/**
 * Tasks that hand every chunk of an unsharded selection to `sink.unread(item)` without fetching it:
 * for a store the pool's workers read themselves (a local folder, js/zarr/local-store.js).
 * @param {object} layout @param {import('./plan.js').DimPart[][]} parts
 * @param {{unread: (item: ChunkItem) => Promise<void>}} sink
 */
export function* unreadTasks(layout, parts, sink) {
  for (const chunk of chunkParts(parts)) {
    const key = keyOf(layout, chunk);
    yield () => sink.unread(item(chunk, key));
  }
}

/**
 * The tasks that fetch every chunk a selection touches and hand it to `sink`. A generator: tasks
 * are made as the scheduler asks for them. A task may resolve to more tasks (a shard's ranges
 * once its index is known).
 * @param {{get: Function, getRange?: Function}} store
 * @param {ReturnType<typeof import('./layout.js').arrayLayout> extends Promise<infer L> ? L : never} layout
 * @param {import('./plan.js').DimPart[][]} parts
 * @param {ChunkSink} sink
 * @param {AbortSignal} [signal]
 */
export function* fetchTasks(store, layout, parts, sink, signal) {
  if (!layout.shard) {
    yield* chunkTasks(store, layout, parts, sink, signal);
    return;
  }
  // one buffer per read for a store that reads into it, grown to the largest range, dropped with the read
  const lent = sink.consumesAtOnce === true && typeof store.readInto === 'function' ? { buffer: new Uint8Array(0) } : null;
  for (const group of shardGroups(parts, layout.shard.chunksPerShard)) yield shardTask(store, layout, group, sink, signal, lent);
}
