#!/usr/bin/env node
// numdecode command line: a small dispatcher. Each format lives in js/cli/<format>.js and
// exports {name, summary, options, optionHelp, decode(bytes, values), inspect(bytes, values)};
// commands that are not decode/inspect (e.g. a directory format) register in COMMANDS.
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { init } from '../js/index.js';

// --format NAME -> module with decode/inspect.
const FORMATS = {
  pco: () => import('../js/cli/pco.js'),
  alp: () => import('../js/cli/alp.js'), // ALP (added by the ALP branch)
};
// Other top-level commands -> module with run(argv) and usage.
const COMMANDS = {
  'encode-alp': () => import('../js/cli/alp.js'), // ALP (added by the ALP branch)
  bpcells: () => import('../js/cli/bpcells.js'), // BPCells (bpcells branch)
  zarr: () => import('../js/cli/zarr.js'), // Zarr stores through zarrita (issue 17)
  parquet: () => import('../js/cli/parquet.js'), // Parquet files with ALP columns (issue 15)
};

const DEFAULT_FORMAT = 'pco';

class UsageError extends Error {}

function usage() {
  const formats = Object.keys(FORMATS).join('|');
  const extra = Object.keys(COMMANDS).map((c) => `  numdecode ${c} ...            (numdecode ${c} --help)\n`).join('');
  return (
    'Usage:\n' +
    `  numdecode decode [--format ${formats}] [format options] FILE [-o OUT]\n` +
    '      write the decoded values as raw little-endian bytes (all chunks, f16 as bits) to OUT or stdout\n' +
    `  numdecode inspect [--format ${formats}] [format options] FILE\n` +
    '      print what the file contains as JSON\n' +
    extra +
    '  numdecode --help | --version\n' +
    `Default format: ${DEFAULT_FORMAT}. Exit codes: 0 ok, 1 bad input, 2 bad usage.\n`
  );
}

// The value of --format wherever it stands, so that the format's own options can be parsed.
function findFormat(argv) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--format') return argv[i + 1];
    if (argv[i].startsWith('--format=')) return argv[i].slice('--format='.length);
  }
  return DEFAULT_FORMAT;
}

async function loadFormat(name) {
  if (!Object.hasOwn(FORMATS, name)) {
    throw new UsageError(`unknown format ${JSON.stringify(name)} (known: ${Object.keys(FORMATS).join(', ')})`);
  }
  return FORMATS[name]();
}

function parse(argv, formatOptions, withOutput) {
  const spec = { format: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...formatOptions };
  if (withOutput) spec.output = { type: 'string', short: 'o' };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err.message);
  }
  return parsed;
}

// Writes every chunk, then waits until the data is handed to the OS (stdout is never closed).
function writeAll(stream, chunks, close) {
  return new Promise((resolve, reject) => {
    stream.on('error', reject);
    for (const c of chunks) stream.write(c);
    if (close) stream.end(resolve);
    else stream.write('', resolve);
  });
}

async function decodeOrInspect(command, argv) {
  const format = await loadFormat(findFormat(argv));
  const { values, positionals } = parse(argv, format.options, command === 'decode');
  if (values.help) {
    process.stdout.write(usage() + (format.optionHelp.length ? `Options for ${format.name}:\n${format.optionHelp.join('\n')}\n` : ''));
    return;
  }
  if (positionals.length !== 1) throw new UsageError(`${command} needs exactly one FILE, got ${positionals.length}`);
  const bytes = new Uint8Array(await readFile(positionals[0]));
  await init();
  if (command === 'inspect') {
    // 64-bit integers are bigint in the API and decimal strings in JSON output.
    process.stdout.write(JSON.stringify(format.inspect(bytes, values), (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2) + '\n');
    return;
  }
  const out = format.decode(bytes, values);
  if (values.output === undefined || values.output === '-') {
    await writeAll(process.stdout, out, false);
  } else {
    await writeAll(createWriteStream(values.output), out, true);
  }
}

async function version() {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`numdecode ${pkg.version}\n`);
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('no command given');
  if (command === '--help' || command === '-h' || command === 'help') return void process.stdout.write(usage());
  if (command === '--version') return version();
  // BPCells (bpcells branch): `inspect DIR_OR_URL` takes a matrix directory or URL, not a file.
  if (command === 'inspect') {
    // Parquet (issue 15): a file starting with PAR1, or a .parquet URL.
    const parquetCli = await COMMANDS.parquet();
    if (await parquetCli.isTarget(rest)) return parquetCli.runInspect(rest);
    const bpcellsCli = await COMMANDS.bpcells();
    if (rest.some((arg) => bpcellsCli.isTarget(arg))) return bpcellsCli.runInspect(rest);
  }
  if (command === 'decode' || command === 'inspect') return decodeOrInspect(command, rest);
  if (Object.hasOwn(COMMANDS, command)) return (await COMMANDS[command]()).run(rest);
  throw new UsageError(`unknown command ${JSON.stringify(command)}`);
}

// One line per error: messages from the decoders say what is wrong and where.
function oneLine(message) {
  const line = String(message).replace(/\s*\n\s*/g, ' ').trim().replace(/^numdecode: /, '');
  return line || 'unknown error';
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError || err?.usage === true /* BPCells CLI usage errors */) {
    process.stderr.write(`numdecode: ${oneLine(err.message)}\n${usage()}`);
    process.exitCode = 2;
  } else if (err?.code === 'EPIPE') {
    // Reader went away (e.g. `| head`): not an error of ours.
  } else {
    process.stderr.write(`numdecode: ${oneLine(err instanceof Error ? err.message : err)}\n`);
    process.exitCode = 1;
  }
}
