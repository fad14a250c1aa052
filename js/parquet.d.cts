// Types of the CommonJS entry of numdecode/parquet (js/parquet.cjs).
// resolution-mode: under moduleResolution node16 a CommonJS file may only type-import ESM this way.
import type * as esm from './parquet.js' with { 'resolution-mode': 'import' };
import type * as errors from './errors.js' with { 'resolution-mode': 'import' };

export type {
  ParquetInput, ParquetReadOptions, ParquetFloatColumn, ParquetOtherColumn, ParquetColumn, ParquetReadResult,
  ParquetAlpVector, ParquetAlpPageInfo, ParquetPageInfo, ParquetChunkInfo, ParquetFileInfo, ParquetPagesOptions, ParquetColumnPage,
} from './parquet.js' with { 'resolution-mode': 'import' };

export const read: typeof esm.read;
export const inspect: typeof esm.inspect;
export const readPages: typeof esm.readPages;
export const CODES: typeof errors.CODES;
/** instanceof-checks errors of the reader (constructing one needs load() first). */
export const NumdecodeError: typeof errors.NumdecodeError;
export const ParquetError: typeof errors.ParquetError;
/** The ES module (read, inspect, readPages, ParquetError). */
export function load(): Promise<typeof esm>;
