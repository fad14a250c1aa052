// js/cli/output.js, the CLI's one writer: CSV quoted as RFC 4180 asks (a header name or a value
// holding a comma, quote, CR or LF), and pieces written to a file or to standard output.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { csvField, csvText, writeOutput } from '../../../js/cli/output.js';
import { projectRoot } from '../helpers/corpus.js';

// RFC 4180 read back: fields split at commas outside quotes, "" inside quotes is one quote.
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') field += text[i++];
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(field), (field = ''));
    else if (c === '\n') (row.push(field), rows.push(row), (row = []), (field = ''));
    else field += c;
  }
  if (field !== '' || row.length) rows.push([...row, field]);
  return rows;
}

let tmp;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'numdecode-output-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test('csvField quotes a field holding a comma, quote, CR or LF, doubling its quotes; others stay as they are', () => {
  expect(csvField('price')).toBe('price');
  expect(csvField('-1.5e-7')).toBe('-1.5e-7');
  expect(csvField('')).toBe('');
  expect(csvField('price, usd')).toBe('"price, usd"');
  expect(csvField('say "hi"')).toBe('"say ""hi"""');
  expect(csvField('two\nlines')).toBe('"two\nlines"');
  expect(csvField('cr\r')).toBe('"cr\r"');
});

test('csvText: header and cells read back exactly, in blocks that split only between lines', () => {
  const header = ['id', 'price, usd', 'say "hi"'];
  const cells = (row, col) => [String(row), `${row},${row}`, `"${row}"\n`][col];
  const blocks = [...csvText({ header, rowCount: 20000, columnCount: 3, cell: cells })];
  expect(blocks.length).toBeGreaterThan(1);
  for (const block of blocks) expect(block.endsWith('\n')).toBe(true);
  const rows = parseCsv(blocks.join(''));
  expect(rows).toHaveLength(20001);
  expect(rows[0]).toEqual(header);
  expect(rows[1]).toEqual(['0', '0,0', '"0"\n']);
  expect(rows[20000]).toEqual(['19999', '19999,19999', '"19999"\n']);
  expect([...csvText({ rowCount: 0, columnCount: 3, cell: cells })]).toEqual([]);
});

test('numdecode parquet writes a header of column names with commas and quotes as valid CSV', async () => {
  const file = path.join(tmp, 'names.parquet');
  const names = ['price, usd', 'say "hi"', 'note'];
  const notes = ['plain', 'a, b', 'line\nbreak'];
  const bytes = parquetWriteBuffer({
    columnData: [
      { name: names[0], data: Float64Array.of(1.5, -2.25, 1e300), type: 'DOUBLE', nullable: false },
      { name: names[1], data: Float32Array.of(0.1, 3, -0), type: 'FLOAT', nullable: false },
      { name: names[2], data: notes, type: 'STRING', nullable: false },
    ],
  });
  writeFileSync(file, new Uint8Array(bytes));
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(projectRoot, 'bin/numdecode.js'), 'parquet', file], { encoding: 'utf8' });
  expect(parseCsv(stdout)).toEqual([names, ['1.5', '0.1', 'plain'], ['-2.25', '3', 'a, b'], ['1e+300', '-0', 'line\nbreak']]);
  expect(stdout.split('\n')[0]).toBe('"price, usd","say ""hi""",note');
});

test('writeOutput waits for a slow standard output to drain, keeps the order and leaves it open', async () => {
  const got = [];
  let ended = false;
  const slow = new Writable({
    highWaterMark: 16,
    write(chunk, _encoding, done) {
      got.push(chunk.toString());
      setImmediate(done);
    },
    final(done) {
      ended = true;
      done();
    },
  });
  const pieces = Array.from({ length: 200 }, (_, i) => `piece ${i}\n`);
  await writeOutput(pieces, undefined, slow);
  expect(got.join('')).toBe(pieces.join(''));
  expect(ended).toBe(false);
});

test('writeOutput writes text and bytes to a file and closes it', async () => {
  const out = path.join(tmp, 'out.bin');
  await writeOutput(['ab', Uint8Array.of(0, 255), 'c'], out);
  expect([...readFileSync(out)]).toEqual([97, 98, 0, 255, 99]);
});
