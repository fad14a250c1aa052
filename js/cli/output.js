// What every CLI command writes: CSV text (quoted as RFC 4180 asks) and pieces of text or bytes to
// standard output or a file. One writer, so that no command writes an unquoted header again.
import { createWriteStream } from 'node:fs';

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

/**
 * Writes `pieces` (an iterable of strings or Uint8Arrays) to the file `output`, or to `stdout`
 * when output is undefined or '-', waiting for the stream to drain when it asks; resolves once
 * everything is handed to the OS. A file is closed; standard output is left open.
 * @param {Iterable<string|Uint8Array>} pieces
 * @param {string} [output]
 * @param {import('node:stream').Writable} [stdout]
 */
export function writeOutput(pieces, output, stdout = process.stdout) {
  const toFile = output !== undefined && output !== '-';
  const stream = toFile ? createWriteStream(output) : stdout;
  const iterator = pieces[Symbol.iterator]();
  return new Promise((resolve, reject) => {
    stream.on('error', reject);
    const pump = () => {
      for (;;) {
        let next;
        try {
          next = iterator.next();
        } catch (err) {
          if (toFile) stream.destroy();
          reject(err);
          return;
        }
        if (next.done) {
          if (toFile) stream.end(resolve);
          else stream.write('', resolve);
          return;
        }
        if (!stream.write(next.value)) {
          stream.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}
