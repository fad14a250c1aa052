// The calling thread's side of decoding a read's chunks in a worker pool. Fetched chunks wait here
// until there is a worker for them, and go in batches, one message each (their bytes copied into
// one buffer, which is moved, not cloned): a message costs more than decoding a small chunk, so a
// batch carries about a millisecond of decoding. A fetch is held back only while the compressed
// bytes waiting or in the workers pass a budget, so that memory stays bounded and the fetching
// never waits on a batch to fill. With a SharedArrayBuffer output the workers place the values
// themselves; otherwise they send each packed box back and it is placed here.
import { placeBox } from './place.js';

// A batch worth a message: this many values to decode (about a millisecond of work)...
const BATCH_VALUES = 1 << 18;
// ...and no more than this many compressed bytes, so that one message does not hold up the others.
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
// Messages per worker in flight: one being decoded, one waiting, so that no worker idles between them.
const MESSAGES_PER_WORKER = 2;
// Compressed bytes held (waiting or in the workers) before a fetch is made to wait.
const BUDGET_BYTES = 16 * 1024 * 1024;
// Chunks the workers read themselves, waiting or in the workers, before the planning waits.
const BUDGET_UNREAD = 4096;
// Slabs of more chunks than this are not assembled in the workers (a batch holds whole slabs).
const MAX_SLAB_CHUNKS = 1024;

const isShared = (buffer) => typeof SharedArrayBuffer === 'function' && buffer instanceof SharedArrayBuffer;

/**
 * @param {{run: Function, size: number}} pool
 * @param {{layout: object, geometry: {shape: number[], strides: number[]}, data: ArrayBufferView,
 *   outBytes: Uint8Array, signal?: AbortSignal, placed: (bytes: number) => void, root?: string,
 *   missing: (item: object) => void, slabs?: ReturnType<typeof import('./slab.js').slabPlan>}} read
 *   placed: called for each chunk once its values are in the output; root: the local folder the
 *   workers read the chunks from (then decodeUnread() or, sharded, decodeLocated() hands chunks over); missing: a chunk they found
 *   absent; slabs: where each chunk goes in slabs, used when the workers read the folder into shared memory
 */
export function poolDecoder(pool, { layout, geometry, data, outBytes, signal, placed, root, missing, slabs }) {
  const shared = isShared(data.buffer);
  // Workers that read the chunks themselves into a shared output assemble slabs (js/zarr/slab.js)
  // when each batch holds whole ones.
  const plan = shared && root !== undefined && slabs && slabs.chunksPerSlab <= MAX_SLAB_CHUNKS ? slabs : null;
  const width = layout.bytesPerElement;
  const chunkValues = layout.chunkShape.reduce((a, b) => a * b, 1);
  const pending = [];
  const waiting = []; // fetches held back by the budget: {resolve, reject}
  let pendingValues = 0;
  let held = 0;
  let inFlight = 0;
  let failure = null;
  let draining = null; // {resolve, reject} once every chunk has been handed over
  const budget = root === undefined ? BUDGET_BYTES : BUDGET_UNREAD;
  const weight = (c) => (c.bytes ? c.bytes.length : 1);

  function settle() {
    while (waiting.length && (failure || held <= budget)) {
      const w = waiting.shift();
      if (failure) w.reject(failure);
      else w.resolve();
    }
    if (draining && (failure || (pending.length === 0 && inFlight === 0))) {
      if (failure) draining.reject(failure);
      else draining.resolve();
      draining = null;
    }
  }

  function send(batch) {
    inFlight++;
    const boxLength = batch[0].box.length;
    const outRank = batch[0].place.counts.length;
    const stride = 2 + boxLength + 1 + outRank + (plan ? 2 + outRank : 0);
    const meta = new Float64Array(batch.length * stride);
    const input = root === undefined ? new Uint8Array(batch.reduce((n, c) => n + c.bytes.length, 0)) : null;
    let at = 0;
    batch.forEach((c, i) => {
      input?.set(c.bytes, at);
      const slab = plan ? [c.slab.base, c.slab.offset, ...c.slab.counts] : [];
      // Where the chunk's bytes are: in `input`, or (a shard's chunk the worker reads) in its shard.
      const [from, length] = c.shard !== undefined ? [c.offset, c.length] : [at, c.bytes?.length ?? 0];
      meta.set([from, length, ...c.box, c.place.base, ...c.place.counts, ...slab], i * stride);
      at += c.bytes?.length ?? 0;
    });
    const weights = batch.reduce((n, c) => n + weight(c), 0);
    const output = shared ? { buffer: data.buffer, byteOffset: data.byteOffset, byteLength: data.byteLength } : null;
    const slab = plan ? { axes: plan.axes, rank: plan.rank, fill: layout.fill, type: data.constructor.name } : null;
    const shards = batch[0].shard === undefined ? null : batch.map((c) => c.shard);
    const description = { dtype: layout.pcoDtype, width, boxLength, shape: geometry.shape, keys: batch.map((c) => c.key), dataset: layout.path, output, root, shards, slab };
    pool.run({ format: 'zarr', op: 'decodeBoxes', args: [input, meta, description] }, { transfer: true, signal }).then(
      (result) => {
        inFlight--;
        held -= weights;
        const absent = new Set(result.missing);
        let k = 0;
        batch.forEach((c, i) => {
          if (absent.has(i)) {
            if (plan) placed(0); // the worker filled it in its slab
            else missing(c.item);
            return;
          }
          if (!shared) placeBox(outBytes, width, geometry, c.place.base, c.place.counts, result.boxes[k]);
          placed(result.sizes[k++]);
        });
        flush();
        settle();
      },
      (err) => {
        inFlight--;
        held -= weights;
        failure ??= err;
        settle();
      },
    );
  }

  // Sends batches while a worker has room: always to an idle worker, to a busy one only a full batch
  // (or the last chunks, once everything has been handed over).
  function flush() {
    while (!failure && pending.length) {
      const idle = inFlight < pool.size;
      const full = pendingValues >= BATCH_VALUES || draining !== null;
      if (!(idle || (full && inFlight < MESSAGES_PER_WORKER * pool.size))) return;
      const size = plan ? wholeSlabs() : batchSize();
      if (size === 0) return; // a slab still coming in
      const batch = pending.splice(0, size);
      pendingValues -= batch.length * chunkValues;
      send(batch);
    }
  }

  // How many pending chunks make a batch: about BATCH_VALUES, at most MAX_BATCH_BYTES.
  function batchSize() {
    let n = 1;
    let bytes = weight(pending[0]);
    while (n < pending.length && n * chunkValues < BATCH_VALUES && bytes + weight(pending[n]) <= MAX_BATCH_BYTES) bytes += weight(pending[n++]);
    return n;
  }

  // The same, cut where a slab ends: whole slabs only (at least one), or 0 while the first slab's
  // chunks are still being handed over.
  function wholeSlabs() {
    const want = batchSize();
    let end = 0; // the end of the last whole slab within `want`, or of the first slab
    for (let i = 1; i <= pending.length; i++) {
      const ends = i === pending.length ? draining !== null : pending[i].slab.base !== pending[i - 1].slab.base;
      if (!ends) continue;
      if (end > 0 && i > want) break;
      end = i;
    }
    return end;
  }

  function hand(chunk) {
    if (failure) return Promise.reject(failure);
    pending.push(chunk);
    pendingValues += chunkValues;
    held += weight(chunk);
    flush();
    if (held <= budget) return Promise.resolve();
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  }

  return {
    /**
     * Hands one chunk over; resolves once the read may fetch more (at once, unless the budget is
     * full). Its values reach the output later: drain() waits for them.
     * @param {string} key @param {Uint8Array} bytes @param {Uint32Array} box
     * @param {{base: number, counts: number[]}} place
     */
    decode(key, bytes, box, place) {
      return hand({ key, bytes, box, place });
    },
    /** The same for a chunk the workers read themselves (root given): `item` goes to missing() if it is absent. */
    decodeUnread(item, box, place) {
      return hand({ key: item.key, bytes: null, box, place, item, slab: plan?.of(item.parts) });
    },
    /** The same for a shard's chunk (root given): the workers read its `length` bytes at `offset` in the
     * shard's file; `entry` null: not stored, the workers fill it (in its slab) or missing() does. */
    decodeLocated(item, shard, entry, box, place) {
      return hand({ key: item.key, bytes: null, shard: entry ? shard : null, offset: entry?.offset ?? 0, length: entry?.length ?? 0, box, place, item, slab: plan?.of(item.parts) });
    },
    /** Sends what is left and resolves once every chunk is in the output; rejects with the first failure. */
    drain() {
      return new Promise((resolve, reject) => {
        draining = { resolve, reject };
        flush();
        settle();
      });
    },
    /** Drops what was not sent (a failed or aborted read). */
    close() {
      pending.length = 0;
      failure ??= new Error('zarr read: the read ended');
      settle();
    },
  };
}
