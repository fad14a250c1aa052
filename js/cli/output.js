// What every CLI command writes: CSV text (js/csv.js) and pieces of text or bytes to standard
// output or a file. One writer, so that no command writes an unquoted header again.
import { createWriteStream } from 'node:fs';

// CSV itself lives in js/csv.js (no Node imports), shared with the demo's downloads.
export { csvField, csvText } from '../csv.js';

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
