// The layer rules scripts/check-imports.mjs enforces (docs/architecture.md): every js/ file in a
// layer, imports only down or across, no import cycle (an entry importing its own namespace is
// fine) and no js/ source file over 500 lines.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../helpers/corpus.js';
import { LAYERS, findCycles, importGraph, layerOf, upwardImports } from '../../../scripts/check-imports.mjs';

const script = path.join(projectRoot, 'scripts/check-imports.mjs');

test('js/ keeps its layers, has no import cycle and no file over 500 lines (scripts/check-imports.mjs exits 0)', () => {
  let output = '';
  let status = 0;
  try {
    output = execFileSync(process.execPath, [script], { encoding: 'utf8' });
  } catch (err) {
    ({ status, stdout: output } = err);
  }
  expect({ status, output }).toEqual({ status: 0, output: expect.stringMatching(/no upward import, no import cycle, none over 500 lines/) });
});

test('the graph holds the entries, their self-imports and the wasm layer under them', () => {
  const { edges } = importGraph();
  expect(edges.get('js/pco-entry.js')).toContain('js/pco-entry.js');
  expect(edges.get('js/index.js')).toContain('js/pco.js');
  expect(edges.get('js/pco.js')).toContain('js/wasm/load.js');
  // import() with a literal path counts as an edge: the CLI loads its subcommands that way.
  expect(edges.get('js/cli/zarr.js')).toContain('js/zarr-explore/explorer.js');
  // Nothing in the lowest layer imports an entry (init() lives in the entries; js/wasm/ only loads).
  const entries = ['js/index.js', 'js/pco-entry.js', 'js/alp-entry.js', 'js/bpcells-entry.js'];
  const lowest = [...edges].filter(([file]) => file.startsWith('js/wasm/') || ['js/errors.js', 'js/dtypes.js', 'js/bytes.js'].includes(file));
  expect(lowest.length).toBeGreaterThan(5);
  expect(lowest.flatMap(([file, targets]) => [...targets].filter((t) => entries.includes(t)).map((t) => `${file} -> ${t}`))).toEqual([]);
});

test('findCycles reports a cycle as its path and ignores a file importing itself', () => {
  const edges = new Map([
    ['entry.js', new Set(['entry.js', 'a.js'])],
    ['a.js', new Set(['b.js'])],
    ['b.js', new Set(['c.js', 'a.js'])],
    ['c.js', new Set()],
  ]);
  expect(findCycles(edges)).toEqual([{ files: ['a.js', 'b.js'], cycle: ['a.js', 'b.js', 'a.js'] }]);
  edges.get('b.js').delete('a.js');
  expect(findCycles(edges)).toEqual([]);
});

test('layerOf takes the most specific entry; upwardImports names imports that go up a layer', () => {
  expect(layerOf('js/errors.js')).toBe(0);
  expect(layerOf('js/hdf5/signature.js')).toBe(0); // the file, not its folder's layer
  expect(layerOf('js/hdf5/runtime.js')).toBe(LAYERS.findIndex(([name]) => name === 'formats'));
  expect(layerOf('js/new-thing.js')).toBe(-1);
  const edges = new Map([
    ['js/wasm/load.js', new Set(['js/errors.js', 'js/index.js'])],
    ['js/pco.js', new Set(['js/wasm/load.js', 'js/alp.js'])],
  ]);
  expect(upwardImports(edges)).toEqual([{ from: 'js/wasm/load.js', to: 'js/index.js', fromLayer: 'io and wasm', toLayer: 'entries' }]);
});
