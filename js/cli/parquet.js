// The Parquet part of the CLI:
//   numdecode parquet FILE|URL [--columns a,b] [--rows a:b] [--format csv|json|bin] [-o OUT]
//   numdecode inspect FILE.parquet        (any file starting with the PAR1 magic, or a .parquet URL)
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { read, inspect } from '../parquet.js';

export const usage =
  'Usage: numdecode parquet FILE|URL [--columns a,b] [--rows START:END] [--format csv|json|bin] [-o OUT]\n' +
  '  Reads columns of a Parquet file (ALP-encoded FLOAT / DOUBLE columns included).\n' +
  '  csv (default): a header line, then one line per row, empty fields at nulls, floats in their\n' +
  '    shortest round-trip form; json: {numRows, columns: {name: [values, null at nulls]}};\n' +
  '  bin: the FLOAT / DOUBLE columns as raw little-endian values, one column after the other (0 at nulls).\n' +
  '       numdecode inspect FILE.parquet   prints the schema, row groups and pages as JSON.\n';

function usageError(message) {
  const err = new Error(message);
  err.usage = true;
  return err;
}

function parseRows(text) {
  const m = /^(\d*):(\d*)$/.exec(text ?? '');
  if (!m) throw usageError(`--rows must be START:END (either may be empty), got ${JSON.stringify(text)}`);
  return { rowStart: m[1] === '' ? undefined : Number(m[1]), rowEnd: m[2] === '' ? undefined : Number(m[2]) };
}

// The shortest decimal that reads back to the same f32 (String() would print the f64 expansion).
function f32Text(v) {
  if (!Number.isFinite(v) || Object.is(v, -0)) return String(Object.is(v, -0) ? '-0' : v);
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(v);
}

function cellText(column, i) {
  if (column.valid && !column.valid[i]) return '';
  const v = column.values[i];
  if (column.type === 'FLOAT') return f32Text(v);
  if (column.type === 'DOUBLE') return Object.is(v, -0) ? '-0' : String(v);
  if (v === null || v === undefined) return '';
  if (typeof v === 'object' && !(v instanceof Date)) return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x));
  const s = v instanceof Date ? v.toISOString() : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function* csvLines(result) {
  const names = Object.keys(result.columns);
  yield `${names.join(',')}\n`;
  const cols = names.map((n) => result.columns[n]);
  let block = '';
  for (let i = 0; i < result.numRows; i++) {
    block += `${cols.map((c) => cellText(c, i)).join(',')}\n`;
    if (block.length > 1 << 16) {
      yield block;
      block = '';
    }
  }
  if (block) yield block;
}

function jsonText(result) {
  const columns = {};
  for (const [name, c] of Object.entries(result.columns)) {
    const out = new Array(result.numRows);
    for (let i = 0; i < result.numRows; i++) {
      const v = c.valid && !c.valid[i] ? null : c.values[i];
      // JSON has no NaN / Infinity / bigint: those become strings
      out[i] = typeof v === 'number' && !Number.isFinite(v) ? String(v) : typeof v === 'bigint' ? v.toString() : v;
    }
    columns[name] = out;
  }
  return `${JSON.stringify({ numRows: result.numRows, columns })}\n`;
}

function binChunks(result) {
  const out = [];
  for (const [name, c] of Object.entries(result.columns)) {
    if (c.type !== 'FLOAT' && c.type !== 'DOUBLE') {
      throw usageError(`--format bin writes FLOAT / DOUBLE columns only; ${name} is ${c.type} (pick columns with --columns)`);
    }
    out.push(new Uint8Array(c.values.buffer, c.values.byteOffset, c.values.byteLength));
  }
  return out;
}

async function writeOut(target, chunks) {
  const stream = target === undefined || target === '-' ? process.stdout : createWriteStream(target);
  await new Promise((resolve, reject) => {
    stream.on('error', reject);
    for (const c of chunks) stream.write(c);
    if (stream === process.stdout) stream.write('', resolve);
    else stream.end(resolve);
  });
}

export async function run(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        columns: { type: 'string' },
        rows: { type: 'string' },
        format: { type: 'string' },
        output: { type: 'string', short: 'o' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw usageError(err.message);
  }
  const { values, positionals } = parsed;
  if (values.help) return void process.stdout.write(usage);
  if (positionals.length !== 1) throw usageError(`parquet needs exactly one FILE or URL, got ${positionals.length}`);
  const format = values.format ?? 'csv';
  if (!['csv', 'json', 'bin'].includes(format)) throw usageError(`--format must be csv, json or bin, got ${JSON.stringify(format)}`);
  const options = {};
  if (values.columns !== undefined) options.columns = values.columns.split(',').filter(Boolean);
  if (values.rows !== undefined) Object.assign(options, parseRows(values.rows));
  if (options.rowStart === undefined) delete options.rowStart;
  if (options.rowEnd === undefined) delete options.rowEnd;
  const result = await read(positionals[0], options);
  if (format === 'bin') return writeOut(values.output, binChunks(result));
  if (format === 'json') return writeOut(values.output, [jsonText(result)]);
  return writeOut(values.output, csvLines(result));
}

/** True when the inspect arguments name a Parquet file: the PAR1 magic, or an http(s) .parquet URL. */
export async function isTarget(args) {
  const target = args.find((a) => !a.startsWith('-'));
  if (target === undefined) return false;
  if (/^https?:\/\//i.test(target)) return /\.parquet([?#]|$)/i.test(target);
  let handle;
  try {
    handle = await open(target, 'r');
    const head = new Uint8Array(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && String.fromCharCode(...head) === 'PAR1';
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

/** numdecode inspect FILE.parquet: the JSON of inspect() (bigints as strings). */
export async function runInspect(args) {
  const files = args.filter((a) => !a.startsWith('-'));
  if (files.length !== 1) throw usageError(`inspect needs exactly one FILE, got ${files.length}`);
  const info = await inspect(files[0]);
  await writeOut(undefined, [`${JSON.stringify(info, (k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`]);
}
