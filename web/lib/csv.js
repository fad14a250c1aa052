// The demo's CSV downloads: a table of exact value texts (RFC 4180 quoting where a name needs it),
// built in blocks so that a million-cell slice never becomes one giant string.

const quoted = (text) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/**
 * @param {{header?: string[], rowNames?: (r: number) => string, rows: number, cols: number,
 *   cell: (r: number, c: number) => string}} table header: the first line; rowNames: a first column
 * @returns {Blob} text/csv
 */
export function csvBlob({ header, rowNames, rows, cols, cell }) {
  const blocks = [];
  let block = header ? `${header.map(quoted).join(',')}\n` : '';
  for (let r = 0; r < rows; r++) {
    const cells = [];
    if (rowNames) cells.push(quoted(rowNames(r)));
    for (let c = 0; c < cols; c++) cells.push(cell(r, c));
    block += `${cells.join(',')}\n`;
    if (block.length > 1 << 16) {
      blocks.push(block);
      block = '';
    }
  }
  blocks.push(block);
  return new Blob(blocks, { type: 'text/csv' });
}
