// The calling thread's side of decoding a read's chunks in a worker pool. Fetched chunks wait here
// while every worker already has work queued, and then go together in one message (their bytes
// copied into one buffer, which is moved, not cloned): small chunks cost one message per batch, not
// one each. With a SharedArrayBuffer output the workers place the values themselves; otherwise
// they send each packed box back and it is placed here.
import { placeBox } from './place.js';

// A batch stops growing here (compressed bytes), so that one message does not hold up the others.
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
// Messages per worker in flight: one being decoded, one waiting, so that no worker idles between them.
const MESSAGES_PER_WORKER = 2;

const isShared = (buffer) => typeof SharedArrayBuffer === 'function' && buffer instanceof SharedArrayBuffer;

/**
 * @param {{run: Function, size: number}} pool
 * @param {{layout: object, geometry: {shape: number[], strides: number[]}, data: ArrayBufferView, outBytes: Uint8Array, signal?: AbortSignal}} read
 */
export function poolDecoder(pool, { layout, geometry, data, outBytes, signal }) {
  const shared = isShared(data.buffer);
  const width = layout.bytesPerElement;
  const pending = [];
  let inFlight = 0;
  let boxLength = 0;
  let countsLength = 0;

  function send(batch) {
    inFlight++;
    const stride = 2 + boxLength + 1 + countsLength;
    const meta = new Float64Array(batch.length * stride);
    const total = batch.reduce((n, c) => n + c.bytes.length, 0);
    const input = new Uint8Array(total);
    let at = 0;
    batch.forEach((c, i) => {
      input.set(c.bytes, at);
      meta.set([at, c.bytes.length, ...c.box, c.place.base, ...c.place.counts], i * stride);
      at += c.bytes.length;
    });
    const job = {
      format: 'zarr',
      op: 'decodeBoxes',
      args: [
        input,
        meta,
        {
          dtype: layout.pcoDtype,
          width,
          boxLength,
          shape: geometry.shape,
          keys: batch.map((c) => c.key),
          dataset: layout.path,
          output: shared ? { buffer: data.buffer, byteOffset: data.byteOffset, byteLength: data.byteLength } : null,
        },
      ],
    };
    pool.run(job, { transfer: true, signal }).then(
      (boxes) => {
        inFlight--;
        if (!shared) batch.forEach((c, i) => placeBox(outBytes, width, geometry, c.place.base, c.place.counts, boxes[i]));
        for (const c of batch) c.resolve();
        flush();
      },
      (err) => {
        inFlight--;
        for (const c of batch) c.reject(err);
        flush();
      },
    );
  }

  function flush() {
    while (pending.length && inFlight < MESSAGES_PER_WORKER * pool.size) {
      const batch = [pending.shift()];
      let bytes = batch[0].bytes.length;
      while (pending.length && bytes + pending[0].bytes.length <= MAX_BATCH_BYTES) {
        bytes += pending[0].bytes.length;
        batch.push(pending.shift());
      }
      send(batch);
    }
  }

  return {
    /**
     * Decodes one chunk in the pool and places its box; resolves once it is in the output.
     * @param {string} key @param {Uint8Array} bytes @param {Uint32Array} box
     * @param {{base: number, counts: number[]}} place
     */
    decode(key, bytes, box, place) {
      boxLength = box.length;
      countsLength = place.counts.length;
      return new Promise((resolve, reject) => {
        pending.push({ key, bytes, box, place, resolve, reject });
        flush();
      });
    },
    /** Nothing stays behind: every chunk's promise settles with its message. */
    close() {
      for (const c of pending.splice(0)) c.reject(new Error('zarr read: the read ended'));
    },
  };
}
