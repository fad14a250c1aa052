// Page decompression, each codec loaded on first use: ZSTD through zstd's own decoder compiled to
// wasm (zstddec, 2-4x the pure-JS fzstd on Parquet pages), SNAPPY through hysnappy (wasm), GZIP
// and BROTLI through the platform (node:zlib; DecompressionStream for gzip in browsers), and the
// rest through hyparquet-compressors' JS. A file whose pages are UNCOMPRESSED loads none of them.

const nodeZlib = () => globalThis.process?.getBuiltinModule?.('node:zlib') ?? null;

// fn() run with the global fetch hidden, in Node only. zstddec loads its wasm with
// fetch('data:...') wherever fetch exists, else from Buffer.from(base64). In Node that fetch loads
// undici, Node's fetch: 65 ms and ~10 MB of RSS for the first ZSTD page of a process, against 4 ms
// and ~4 MB for the Buffer path (measured on this project's VM). fn must read fetch synchronously.
function withoutFetch(fn) {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  const node = typeof globalThis.process?.versions?.node === 'string' && typeof globalThis.Buffer?.from === 'function';
  if (!node || !descriptor?.configurable) return fn();
  delete globalThis.fetch;
  try {
    return fn();
  } finally {
    Object.defineProperty(globalThis, 'fetch', descriptor);
  }
}

// One loader per compressed codec of pages.js's knownCodec; each resolves to
// (input: Uint8Array, size: number) => Uint8Array | Promise<Uint8Array>.
const LOADERS = {
  async SNAPPY() {
    const { snappyUncompressor } = await import('hysnappy');
    // hysnappy's uncompressor returns a fresh copy of every page (a whole read's worth of garbage,
    // collected late: ~16 MB over the read's bound in bench/memory-reads.mjs). It instantiates its
    // module synchronously inside snappyUncompressor(); caught there, pages decompress in place.
    let exports = null;
    const { Instance } = WebAssembly;
    let copying;
    try {
      WebAssembly.Instance = function CapturedInstance(module, imports) {
        const instance = new Instance(module, imports);
        exports = instance.exports;
        return instance;
      };
      copying = snappyUncompressor();
    } finally {
      WebAssembly.Instance = Instance;
    }
    const ok = exports && exports.memory instanceof WebAssembly.Memory && typeof exports.uncompress === 'function';
    return ok ? snappyInPlace(exports) : copying;
  },
  async ZSTD() {
    const { ZSTDDecoder } = await import('zstddec');
    const decoder = new ZSTDDecoder();
    // zstddec's decode() returns a fresh copy of every page; with its module's exports (handed
    // to _init, a documented method) pages decompress into one reused buffer instead.
    let exports = null;
    const init = decoder._init;
    decoder._init = (result) => {
      exports = result.instance.exports;
      return init.call(decoder, result);
    };
    await withoutFetch(() => decoder.init());
    if (exports === null) {
      // Another ZSTDDecoder loaded the module first: the copying decode() then.
      return (input, size) => {
        const out = decoder.decode(input, size);
        if (out.length !== size) throw new Error(`the frame gave ${out.length} bytes, not ${size}`);
        return out;
      };
    }
    return zstdInPlace(exports);
  },
  async GZIP() {
    const zlib = nodeZlib();
    if (zlib) return (input, size) => zlib.gunzipSync(input, { maxOutputLength: Math.max(size, 1) });
    if (typeof DecompressionStream === 'function') return gunzipStream;
    const { gunzip } = await import('hyparquet-compressors/src/gzip.js');
    return (input, size) => gunzip(input, new Uint8Array(size));
  },
  async BROTLI() {
    const zlib = nodeZlib();
    if (zlib) return (input, size) => zlib.brotliDecompressSync(input, { maxOutputLength: Math.max(size, 1) });
    const { decompressBrotli } = await import('hyparquet-compressors/src/brotli.js');
    return decompressBrotli;
  },
  async LZ4() {
    const { decompressLz4 } = await import('hyparquet-compressors/src/lz4.js');
    return decompressLz4;
  },
  async LZ4_RAW() {
    const { decompressLz4Raw } = await import('hyparquet-compressors/src/lz4.js');
    return decompressLz4Raw;
  },
};

// ZSTD_decompress into a buffer in zstd's own wasm memory, reused page after page: the result is a
// view, valid until the next call (callers copy what they keep). The input buffer is reused too.
function zstdInPlace(zstd) {
  let input = { ptr: 0, size: 0 };
  let output = { ptr: 0, size: 0 };
  const reserve = (buffer, size) => {
    if (buffer.size >= size) return buffer;
    if (buffer.ptr) zstd.free(buffer.ptr);
    const ptr = zstd.malloc(Math.max(size, 1));
    if (!ptr) throw new Error(`zstd: out of memory for ${size} bytes`);
    return { ptr, size };
  };
  return (bytes, size) => {
    input = reserve(input, bytes.length);
    output = reserve(output, size);
    new Uint8Array(zstd.memory.buffer).set(bytes, input.ptr); // after malloc: memory may have grown
    const got = zstd.ZSTD_decompress(output.ptr, size, input.ptr, bytes.length);
    // a size_t: an error code reads as a huge (or, as i32, negative) count
    if (zstd.ZSTD_isError(got)) throw new Error(`the frame is damaged (zstd error ${-got >>> 0})`);
    if (got >>> 0 !== size) throw new Error(`the frame gave ${got >>> 0} bytes, not ${size}`);
    return new Uint8Array(zstd.memory.buffer, output.ptr, size);
  };
}

// hysnappy's uncompress into its own wasm memory, where its uncompressor puts it (input at 68000,
// past the module's data and stack, the output after it), returned as a view valid until the next
// call (callers copy what they keep), as zstdInPlace. The block's stated length (a varint at its
// start) is checked first: the module writes that many bytes whatever room it was given.
const SNAPPY_AT = 68000;
function snappyInPlace({ memory, uncompress }) {
  return (bytes, size) => {
    let stated = 0;
    let shift = 0;
    for (let i = 0; ; i++) {
      if (i >= bytes.length || i > 4) throw new Error('invalid snappy length header');
      stated += (bytes[i] & 0x7f) * 2 ** shift;
      shift += 7;
      if (bytes[i] < 0x80) break;
    }
    if (stated !== size) throw new Error(`the block holds ${stated} bytes, not ${size}`);
    const out = SNAPPY_AT + bytes.length;
    const need = out + size;
    if (memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
    new Uint8Array(memory.buffer).set(bytes, SNAPPY_AT);
    const result = uncompress(SNAPPY_AT, bytes.length, out);
    if (result === -1) throw new Error('invalid snappy length header');
    if (result === -2) throw new Error('missing eof marker');
    if (result === -3) throw new Error('premature end of input');
    if (result) throw new Error(`failed to uncompress data ${result}`);
    return new Uint8Array(memory.buffer, out, size);
  };
}

// The browser's own gunzip (a stream; Parquet pages are small enough to take whole).
async function gunzipStream(input) {
  const stream = new Blob([input]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const loaded = new Map(); // codec -> Promise of its function

/**
 * The decompressor of `codec` (loading it once), or null for UNCOMPRESSED.
 * @returns {Promise<((input: Uint8Array, size: number) => Uint8Array | Promise<Uint8Array>) | null>}
 */
export function loadCodec(codec) {
  if (codec === 'UNCOMPRESSED') return Promise.resolve(null);
  let p = loaded.get(codec);
  if (p === undefined) {
    p = LOADERS[codec]();
    p.catch(() => loaded.delete(codec)); // a failed load (a blocked import) may be retried
    loaded.set(codec, p);
  }
  return p;
}
