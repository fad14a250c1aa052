// Types of the CommonJS entry of numdecode/parquet (js/parquet.cjs).
import type * as esm from './parquet.js';

export type {
  ParquetInput, ParquetReadOptions, ParquetFloatColumn, ParquetOtherColumn, ParquetColumn, ParquetReadResult,
  ParquetAlpVector, ParquetAlpPageInfo, ParquetPageInfo, ParquetChunkInfo, ParquetFileInfo, ParquetPagesOptions, ParquetColumnPage,
} from './parquet.js';

export const read: typeof esm.read;
export const inspect: typeof esm.inspect;
export const readPages: typeof esm.readPages;
/** The ES module (read, inspect, readPages, ParquetError). */
export function load(): Promise<typeof esm>;
