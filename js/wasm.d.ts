// DEPRECATED with wasm.js, for the move only: the declarations live beside the modules now
// (wasm/load.d.ts, wasm/inputs.d.ts, dtypes.d.ts).
export * from './wasm/load.js';
export * from './wasm/inputs.js';
export * from './dtypes.js';
export { init } from './index.js';
export function binding(format: import('./wasm/load.js').WasmFormat, name: string): (...args: any[]) => any;
export function textAt(mod: any, ptr: number): string;
export function bytesAt(mod: any, ptr: number, size: number): Uint8Array;
