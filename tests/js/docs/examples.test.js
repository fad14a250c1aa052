// The docs' runnable examples, run as a user would run them. Every fenced block whose info string
// is exactly `js runnable` (README.md and docs/*.md), directly after a line `<!-- example: NAME -->`,
// is written to an .mjs file in a fresh temporary folder where `numdecode` resolves to this project
// (node_modules/numdecode is a link to it) and the input files it names are links to corpus files;
// node runs it, and what it prints must equal what the same console.log calls print for the
// corpus' expected values. See docs/development.md, "Runnable examples in the docs".
import { expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { format, promisify } from 'node:util';
import { corpusRoot, projectRoot } from '../helpers/corpus.js';

const run = promisify(execFile);

/** Typed array of `Type` over a copy of a corpus file's bytes (a copy: the view must be aligned). */
function readTyped(Type, relPath) {
  const bytes = readFileSync(path.join(corpusRoot, relPath));
  return new Type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** The first `count` values of a CSV column (a header line, then one row per line). */
function csvColumn(relPath, column, count) {
  const [header, ...rows] = readFileSync(path.join(corpusRoot, relPath), 'utf8').trim().split('\n');
  const at = header.split(',').indexOf(column);
  return Float64Array.from(rows.slice(0, count), (row) => Number(row.split(',')[at]));
}

/** console.log's output for these argument lists, one line each. */
const printed = (...lines) => lines.map((args) => `${format(...args)}\n`).join('');

function pcoExpected() {
  const values = readTyped(Float64Array, 'pco/classic_f64_n1000.bin');
  return printed([values.length, values.subarray(0, 3)]);
}

// name -> the files the example reads (its name there -> corpus path) and what it must print.
const EXAMPLES = {
  pco: {
    files: { 'data.pco': 'pco/classic_f64_n1000.pco' },
    expected: pcoExpected,
  },
  alp: {
    files: { 'page.alp': 'alp/f64_sensor1_n3000.alp' },
    expected: () => {
      const values = readTyped(Float64Array, 'alp/f64_sensor1_n3000.bin');
      return printed([values.length, values.subarray(0, 3)]);
    },
  },
  'bpcells-dir': {
    files: { matrix: 'bpcells/packed_uint_col_names/matrix' },
    expected: () => {
      const dir = 'bpcells/packed_uint_col_names/expected/';
      const shape = Array.from(readTyped(Uint32Array, `${dir}shape.u32`));
      const idxptr = Array.from(readTyped(BigUint64Array, `${dir}idxptr.u64`), Number);
      const index = readTyped(Uint32Array, `${dir}index.u32`);
      const val = readTyped(Uint32Array, `${dir}val.u32`);
      const [start, end] = idxptr;
      return printed(
        [shape, 'col', idxptr.at(-1)],
        [Float64Array.of(0, end - start), index.subarray(start, end), val.subarray(start, end)],
      );
    },
  },
  'bpcells-hdf5': {
    files: { 'counts.h5': 'bpcells-hdf5/packed_uint_col_counts_names/matrix.h5' },
    expected: () => {
      const expected = JSON.parse(readFileSync(path.join(corpusRoot, 'bpcells-hdf5/packed_uint_col_counts_names/expected.json'), 'utf8'));
      const { idxptr, index, val } = expected.stored;
      const first = (list) => Uint32Array.from(list.slice(idxptr[0], idxptr[1]).slice(0, 5));
      return printed([[`/${expected.group}`]], [expected.shape, first(index), first(val)]);
    },
  },
  parquet: {
    files: { 'songs.parquet': 'parquet-alp/alp_spotify1.parquet' },
    expected: () => printed([3, csvColumn('parquet-alp/alp_spotify1_expect.csv', 'tempo', 3)]),
  },
  zarr: {
    files: { 'era5.zarr': 'zarr-pcodec/stores/era5_like_v3.zarr' },
    expected: () => printed([[3], readTyped(Float64Array, 'zarr-pcodec/expected/era5_like_v3.zarr/latitude.bin').subarray(0, 3)]),
  },
  'zarr-list': {
    files: { 'era5.zarr': 'zarr-pcodec/stores/era5_like_v3.zarr' },
    // The arrays as the store's consolidated zarr.json names them, then latitude's first values.
    expected: () => {
      const root = JSON.parse(readFileSync(path.join(corpusRoot, 'zarr-pcodec/stores/era5_like_v3.zarr/zarr.json'), 'utf8'));
      const dtype = { float32: 'f32', float64: 'f64', int64: 'i64' };
      const arrays = Object.entries(root.consolidated_metadata.metadata)
        .filter(([, m]) => m.node_type === 'array')
        .map(([name, m]) => [`/${name}`, dtype[m.data_type], m.shape])
        .sort((a, b) => a[0].localeCompare(b[0]));
      return printed(...arrays, [readTyped(Float64Array, 'zarr-pcodec/expected/era5_like_v3.zarr/latitude.bin').subarray(0, 3)]);
    },
  },
  'worker-pool': {
    files: { 'data.pco': 'pco/classic_f64_n1000.pco' },
    expected: pcoExpected,
  },
};

// The README's quick start shows one example per format and container; each must stay runnable.
const README_EXAMPLES = ['pco', 'alp', 'bpcells-dir', 'bpcells-hdf5', 'parquet', 'zarr', 'worker-pool'];

/** Every block marked runnable in a Markdown file: { doc, line, name, code }. */
function runnableBlocks(file) {
  const doc = path.relative(projectRoot, file);
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```\s*js\s+runnable/.test(lines[i])) continue;
    const end = lines.indexOf('```', i + 1);
    const name = /^<!-- example: ([\w-]+) -->$/.exec(lines[i - 1] ?? '')?.[1] ?? null;
    blocks.push({ doc, line: i + 1, info: lines[i].slice(3), name, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

const docsDir = path.join(projectRoot, 'docs');
const docs = [
  path.join(projectRoot, 'README.md'),
  ...readdirSync(docsDir).filter((f) => f.endsWith('.md')).map((f) => path.join(docsDir, f)),
];
const blocks = docs.flatMap(runnableBlocks);

test('every runnable block is marked exactly and names an example this test knows', () => {
  const bad = blocks
    .filter((b) => b.info !== 'js runnable' || !(b.name in EXAMPLES))
    .map((b) => `${b.doc}:${b.line} (info "${b.info}", example ${b.name})`);
  expect(bad).toEqual([]);
});

test("the README's quick start keeps one runnable example per format and container", () => {
  const inReadme = blocks.filter((b) => b.doc === 'README.md').map((b) => b.name);
  expect(inReadme).toEqual(README_EXAMPLES);
});

/** Runs one example in a fresh folder: the package and the example's input files are links. */
async function runExample(block) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-example-'));
  const links = [];
  const link = (target, at) => {
    symlinkSync(target, at);
    links.push(at);
  };
  try {
    mkdirSync(path.join(dir, 'node_modules', '@zarrita'), { recursive: true });
    link(projectRoot, path.join(dir, 'node_modules', 'numdecode'));
    // zarrita is the app's own dependency (a peer of numdecode/zarr): the project's dev copy.
    link(path.join(projectRoot, 'node_modules', 'zarrita'), path.join(dir, 'node_modules', 'zarrita'));
    link(path.join(projectRoot, 'node_modules', '@zarrita', 'storage'), path.join(dir, 'node_modules', '@zarrita', 'storage'));
    for (const [name, corpusPath] of Object.entries(EXAMPLES[block.name].files)) {
      const target = path.join(corpusRoot, corpusPath);
      if (!existsSync(target)) throw new Error(`corpus file missing: ${target}`);
      link(target, path.join(dir, name));
    }
    writeFileSync(path.join(dir, 'example.mjs'), `${block.code}\n`);
    const env = { ...process.env };
    delete env.NODE_OPTIONS; // Jest's --experimental-vm-modules is not the user's
    return await run(process.execPath, ['example.mjs'], { cwd: dir, env, timeout: 60000 });
  } finally {
    // Unlink the links first, so removing the folder can never reach the project or the corpus.
    for (const at of links) unlinkSync(at);
    rmSync(dir, { recursive: true, force: true });
  }
}

const known = blocks.filter((b) => b.info === 'js runnable' && b.name in EXAMPLES);
test.each(known.map((b) => [`${b.doc}:${b.line} ${b.name}`, b]))('%s prints the corpus values', async (_title, block) => {
  const { stdout } = await runExample(block);
  expect(stdout).toBe(EXAMPLES[block.name].expected());
});
