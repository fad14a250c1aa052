// Types of the CommonJS entry of numdecode/parquet (js/parquet.cjs).
import type * as esm from './parquet.js';

export type {
  ParquetInput, ParquetReadOptions, ParquetFloatColumn, ParquetOtherColumn, ParquetColumn, ParquetReadResult,
  ParquetAlpVector, ParquetAlpPageInfo, ParquetPageInfo, ParquetChunkInfo, ParquetFileInfo,
} from './parquet.js';

export const read: typeof esm.read;
export const inspect: typeof esm.inspect;
/** The ES module (read, inspect, ParquetError). */
export function load(): Promise<typeof esm>;
