// The demo's CSV downloads: js/csv.js's text (the CLI's one writer, RFC 4180 quoting) in blocks,
// so that a million-cell slice never becomes one giant string.
import { csvText } from '../../js/csv.js';

/**
 * @param {{header?: string[], rowNames?: (r: number) => string, rows: number, cols: number,
 *   cell: (r: number, c: number) => string}} table header: the first line; rowNames: a first column
 * @returns {Blob} text/csv
 */
export function csvBlob({ header, rowNames, rows, cols, cell }) {
  const named = rowNames !== undefined;
  const text = csvText({
    header,
    rowCount: rows,
    columnCount: cols + (named ? 1 : 0),
    cell: named ? (r, c) => (c === 0 ? rowNames(r) : cell(r, c - 1)) : cell,
  });
  return new Blob([...text], { type: 'text/csv' });
}
