// The Parquet part of the CLI:
//   numdecode parquet FILE|URL [--columns a,b] [--rows a:b] [--format csv|json|bin] [-o OUT]
//   numdecode inspect FILE.parquet        (any file starting with the PAR1 magic, or a .parquet URL)
import { parseArgs } from 'node:util';
import { bytesOf } from '../bytes.js';
import { formatF32 } from '../number-text.js';
import { read, inspect } from '../parquet.js';
import { formatFromName } from '../sniff.js';
import { sniffPath } from './input.js';
import { csvText, writeOutput } from './output.js';

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

function cellText(column, i) {
  if (column.valid && !column.valid[i]) return '';
  const v = column.values[i];
  if (column.type === 'FLOAT') return formatF32(v); // the shortest decimal that reads back as the same f32
  if (column.type === 'DOUBLE') return Object.is(v, -0) ? '-0' : String(v);
  if (v === null || v === undefined) return '';
  if (typeof v === 'object' && !(v instanceof Date)) return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x));
  return v instanceof Date ? v.toISOString() : String(v);
}

// A header line of the column names, then one line per row (fields quoted by csvText where needed).
function csvLines(result) {
  const names = Object.keys(result.columns);
  const cols = names.map((n) => result.columns[n]);
  return csvText({ header: names, rowCount: result.numRows, columnCount: cols.length, cell: (row, col) => cellText(cols[col], row) });
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
    out.push(bytesOf(c.values));
  }
  return out;
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
  if (format === 'bin') return writeOutput(binChunks(result), values.output);
  if (format === 'json') return writeOutput([jsonText(result)], values.output);
  return writeOutput(csvLines(result), values.output);
}

/** True when the inspect arguments name a Parquet file: the PAR1 magic, or an http(s) .parquet URL. */
export async function isTarget(args) {
  const target = args.find((a) => !a.startsWith('-'));
  if (target === undefined) return false;
  if (/^https?:\/\//i.test(target)) return formatFromName(target) === 'parquet';
  return sniffPath(target) === 'parquet';
}

/** numdecode inspect FILE.parquet: the JSON of inspect() (bigints as strings). */
export async function runInspect(args) {
  const files = args.filter((a) => !a.startsWith('-'));
  if (files.length !== 1) throw usageError(`inspect needs exactly one FILE, got ${files.length}`);
  const info = await inspect(files[0]);
  await writeOutput([`${JSON.stringify(info, (k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`]);
}
