// Declarations of inputs.js: compressed input in a format's wasm memory.
import type { WasmFormat } from './load.js';

/** Compressed input in a format's wasm memory (see wasmInput()). */
export interface WasmInput {
  readonly format: WasmFormat;
  readonly byteLength: number;
  /** The buffer's bytes in wasm memory; re-read after other numdecode calls (memory growth detaches it). Throws once released. */
  readonly bytes: Uint8Array;
  /** Same as bytes (every view's name for its contents). */
  readonly values: Uint8Array;
  readonly released: boolean;
  /** Frees the buffer. Safe to call more than once. */
  release(): void;
  close(): void;
  [Symbol.dispose](): void;
}
/**
 * byteLength bytes in the format's wasm memory: fill `bytes` once (a file read, a fetched body) and
 * pass it, or a subarray of it, to that format's decoders, which read it in place instead of copying it.
 */
export function wasmInput(format: WasmFormat, byteLength: number): WasmInput;
/** Copies the arrays into the format's wasm memory around fn(ptr0, len0, ...); for the format wrappers. */
export function withInputs<R>(format: WasmFormat, arrays: Uint8Array[], fn: (...ptrAndLen: number[]) => R): R;
