// The error every column-level failure becomes: a ParquetError naming file, column, row group
// and page. Internal helpers throw a message string (or {unsupported: message}); this wraps it.
import { ParquetError, CODES } from '../errors.js';

/** A ParquetError naming file, column, row group and (when known) data page. */
export function columnError(where, message, cause) {
  const { file, column, rowGroup, page } = where;
  const parts = [`column ${column}`];
  if (rowGroup !== undefined) parts.push(`row group ${rowGroup}`);
  if (page !== undefined) parts.push(typeof page === 'number' ? `page ${page}` : page);
  let code = CODES.BAD_DATA;
  let text = message;
  if (message && typeof message === 'object' && message.unsupported) {
    code = CODES.UNSUPPORTED;
    text = message.unsupported;
  } else if (typeof message !== 'string') {
    text = String(message?.message ?? message);
    cause ??= message;
    if (message?.code === CODES.OUTPUT_LIMIT) code = CODES.OUTPUT_LIMIT; // out of (wasm) memory is no damage
  }
  return new ParquetError(`parquet: ${file}: ${parts.join(', ')}: ${text}`, {
    code,
    cause,
    file,
    column,
    rowGroup,
    page: typeof page === 'number' ? page : undefined,
  });
}
