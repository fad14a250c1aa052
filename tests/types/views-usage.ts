// Compiled (not run) by `tsc -p tests/types`: output styles, `using` and the error family type-check.
import { alp, pco, wasmInput, NumdecodeError, PcoError, CODES } from 'numdecode';
import type { AlpView, NumdecodeErrorCode, WasmInput } from 'numdecode';

export function views(bytes: Uint8Array, page: Uint8Array) {
  {
    using view = pco.decodeView(bytes);
    const n: number = view.values.length;
    void n;
  }
  {
    using f64 = alp.decodeView(page, 'f64');
    const values: Float64Array = f64.values;
    void values;
  }
  {
    // Compressed bytes written once into wasm memory, decoded in place.
    using input: WasmInput = wasmInput('alp', page.length);
    input.bytes.set(page);
    const inPlace: Float64Array = alp.decode(input.bytes.subarray(0, page.length), 'f64');
    void inPlace;
    // @ts-expect-error: only formats with a wasm module
    wasmInput('zarr', 8);
  }
  const v: AlpView<'f32'> = alp.decodeView(page, { dtype: 'f32', start: 0, end: 10 });
  const sizes: [number, number] = [v.length, v.byteLength];
  v.release();
  void sizes;
  {
    // One view shape for every format: dtype narrows values, no cast.
    const p = pco.decodeView(bytes);
    if (p.dtype === 'f64') {
      const f64: Float64Array = p.values;
      void f64;
    } else if (p.dtype === 'i64') {
      const big: BigInt64Array = p.values;
      void big;
    } else if (p.dtype === null) {
      const none: Uint8Array = p.values;
      void none;
    }
    const counts: [number, number] = [p.length, p.byteLength];
    void counts;
    p.release();
  }
  const fresh: Float32Array = alp.decode(page, { dtype: 'f32', maxOutputBytes: 1 << 20 });
  const short: Float64Array = alp.decode(page, 'f64');
  const into: Float32Array = alp.decodeInto(page, new Float32Array(100), { start: 5 });
  {
    using reader = alp.open(page, 'f64');
    const all: Float64Array = reader.decode();
    void all;
  }
  // @ts-expect-error: ALP pages hold f32 or f64 only
  alp.decode(page, 'f16');
  // @ts-expect-error: out must be a float array
  alp.decodeInto(page, new Int32Array(4));
  return { fresh, short, into };
}

export function errors(err: unknown): NumdecodeErrorCode | undefined {
  if (err instanceof PcoError && err.code === CODES.OUTPUT_LIMIT) return err.code;
  if (err instanceof NumdecodeError) return err.code;
  return undefined;
}
