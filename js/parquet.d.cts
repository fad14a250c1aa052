// Types of the CommonJS entry of numdecode/parquet (js/parquet.cjs).
// resolution-mode: under moduleResolution node16 a CommonJS file may only type-import ESM this way.
import type * as esm from './parquet.js' with { 'resolution-mode': 'import' };

export type {
  ParquetInput, ParquetReadOptions, ParquetFloatColumn, ParquetOtherColumn, ParquetColumn, ParquetReadResult,
  ParquetAlpVector, ParquetAlpPageInfo, ParquetPageInfo, ParquetChunkInfo, ParquetFileInfo, ParquetPagesOptions, ParquetColumnPage,
} from './parquet.js' with { 'resolution-mode': 'import' };

export const read: typeof esm.read;
export const inspect: typeof esm.inspect;
export const readPages: typeof esm.readPages;
/** The ES module (read, inspect, readPages, ParquetError). */
export function load(): Promise<typeof esm>;
