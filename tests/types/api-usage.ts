// Compiled (not run) by `tsc -p tests/types`: the declarations in js/*.d.ts must type real usage.
import { init, buildInfo, pco, DTYPES } from 'numdecode';
import type { BuildInfo, Dtype, PcoFileInfo, DecodedArray } from 'numdecode';

export async function example(bytes: Uint8Array, header: Uint8Array, meta: Uint8Array, page: Uint8Array) {
  await init();
  await init({ simd: 'auto' });
  await init({ simd: false, formats: ['pco'], wasmBinary: new ArrayBuffer(8) });
  const info: BuildInfo = buildInfo();
  const simd: boolean = info.simd;

  const values: DecodedArray = pco.decode(bytes);
  const n: number = values.length;
  for (const chunk of pco.decodeChunks(bytes)) {
    const d: Dtype = chunk.dtype;
    void d;
    if (chunk.dtype === 'f64') {
      const narrowedChunk: Float64Array = chunk.values; // the dtype check narrows the values
      void narrowedChunk;
    } else if (chunk.dtype === 'i64') {
      const wide: BigInt64Array = chunk.values;
      void wide;
    }
  }
  const file: PcoFileInfo = pco.inspect(bytes);
  const firstMode: string = file.chunks[0].mode.name;
  const bins: number = file.chunks[0].latentVars[0].bins.length;

  const reader = pco.wrapped.open(header);
  const major: number = reader.formatVersion.major;
  const chunk = reader.chunk(meta, 'f32');
  const floats: Float32Array = chunk.decodePage(page, 100);
  const big: BigInt64Array = reader.chunk(meta, 'i64').decodePage(page, 10);
  const halfBits: Uint16Array = reader.chunk(meta, 'f16').decodePage(page, 10);
  const names: readonly Dtype[] = DTYPES;

  const into: Float64Array = pco.decodeInto(bytes, new Float64Array(1000));
  const intoBig: BigInt64Array = pco.decodeInto(bytes, new BigInt64Array(1000), { maxOutputBytes: 8000 });
  // @ts-expect-error: out is a typed array of a dtype, not a buffer
  pco.decodeInto(bytes, new ArrayBuffer(8));

  // @ts-expect-error: dtype names are checked
  reader.chunk(meta, 'f128');
  // Any BufferSource is bytes; a dtype in the options narrows the result.
  const fromBuffer: DecodedArray = pco.decode(new ArrayBuffer(4));
  const narrowed: Float64Array = pco.decode(bytes, { dtype: 'f64' });
  const narrowedView: Float32Array = pco.decodeView(bytes, { dtype: 'f32' }).values;
  const kind: Dtype | 'mixed' | null = pco.dtypeOf(bytes);
  // @ts-expect-error: a string is not bytes
  pco.decode('not bytes');
  // @ts-expect-error: dtype names are checked in options too
  pco.decode(bytes, { dtype: 'f128' });
  const api = await init();
  const again: Float64Array = api.pco.decode(bytes, { dtype: 'f64' });

  // Encoding: promises; modes and deltas by kind or as inspect() reports them.
  const encoded: Uint8Array = await pco.encode(new Float64Array(8), { level: 8, mode: { kind: 'floatMult', base: 0.01 }, delta: 'auto' });
  await pco.encode(new BigInt64Array(4), { mode: { kind: 'intMult', base: 1000n }, delta: { kind: 'consecutive', order: 1 }, chunkSize: 1000 });
  await pco.encode([1, 2, 3], { dtype: 'i32', mode: file.chunks[0].mode, delta: file.chunks[0].delta });
  const wrappedOut = await pco.encodeWrapped(new Uint16Array(4), { dtype: 'f16', pageSizes: [2, 2] });
  const pageBytes: Uint8Array = wrappedOut.pages[0].bytes;
  // @ts-expect-error: chunk sizes belong to standalone files, page sizes to wrapped chunks
  await pco.encodeWrapped(new Uint16Array(4), { chunkSize: 2 });
  // @ts-expect-error: the mode kinds are checked
  await pco.encode(new Float64Array(8), { mode: { kind: 'gcd' } });

  return { simd, n, firstMode, bins, major, floats, big, halfBits, names, into, intoBig, fromBuffer, narrowed, narrowedView, kind, again, encoded, pageBytes };
}
