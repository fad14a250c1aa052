// CSV text quoted as RFC 4180 asks: the one writer of the CLI (js/cli/output.js) and the demo's
// downloads (web/lib/csv.js), so that no output writes an unquoted field. No Node imports: it runs in pages.

const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV field: as it is, or in double quotes (quotes inside doubled) when it holds a comma, quote, CR or LF. */
export function csvField(text) {
  const s = String(text);
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const BLOCK_CHARS = 1 << 16; // text handed to the stream at a time

/**
 * CSV text in blocks of about 64 K characters: the header line when `header` is given, then
 * rowCount lines of columnCount fields, cell(row, column) giving each field's text. Lines end in
 * LF (the tools this output feeds read it; RFC 4180's CRLF is optional for them).
 * @param {{header?: string[], rowCount: number, columnCount: number, cell: (row: number, column: number) => string}} table
 * @returns {Generator<string>}
 */
export function* csvText({ header, rowCount, columnCount, cell }) {
  let block = header ? `${header.map(csvField).join(',')}\n` : '';
  for (let row = 0; row < rowCount; row++) {
    for (let column = 0; column < columnCount; column++) {
      if (column > 0) block += ',';
      block += csvField(cell(row, column));
    }
    block += '\n';
    if (block.length >= BLOCK_CHARS) {
      yield block;
      block = '';
    }
  }
  if (block) yield block;
}
