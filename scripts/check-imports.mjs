#!/usr/bin/env node
// Checks the house rules that a file graph can show (docs/architecture.md):
//   - every js/ file belongs to a layer (LAYERS below) and imports only from its own layer or
//     the ones under it: layers point down;
//   - no import cycle among js/ files (an entry importing its own namespace, a file importing
//     itself, is allowed);
//   - no js/ source file over 500 lines.
// Edges are the static import / export-from statements and import() calls with a literal path,
// read with TypeScript's parser (so comments and strings are never taken for imports); only
// relative paths to files inside js/ count. Exit 1 when a rule is broken, with what breaks it.
//
//   node scripts/check-imports.mjs          report, exit 0 or 1
//   node scripts/check-imports.mjs --json   {files, edges, unplaced, upward, cycles, long} for other tools
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ts = createRequire(import.meta.url)('typescript');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jsDir = path.join(root, 'js');
const MAX_LINES = 500;
const SOURCE = /\.(js|mjs)$/;

// The layers, lowest first: a file may import from its own layer and those listed before it. An
// entry names a file or, ending in '/', a folder. A new file outside every entry fails the check
// until it is placed here (and in docs/architecture.md's map).
export const LAYERS = [
  ['base', ['js/errors.js', 'js/dtypes.js', 'js/bytes.js', 'js/number-text.js', 'js/deprecate.js', 'js/csv.js', 'js/hdf5/signature.js', 'js/sniff.js']],
  ['io and wasm', ['js/io/', 'js/wasm/', 'js/worker/index.js', 'js/worker/messages.js']],
  ['formats', ['js/pco.js', 'js/pco/', 'js/alp.js', 'js/hdf5/']],
  ['containers', ['js/bpcells/', 'js/parquet/', 'js/parquet.js', 'js/zarr/', 'js/zarr.js']],
  ['entries', ['js/index.js', 'js/pco-entry.js', 'js/alp-entry.js', 'js/bpcells-entry.js', 'js/worker/worker.js']],
  ['tools', ['js/cli/', 'js/zarr-explore/']],
];

/** The layer index of a js/ file (0 = base), by its most specific LAYERS entry; -1 when none. */
export function layerOf(file, layers = LAYERS) {
  let best = -1;
  let bestLength = -1;
  layers.forEach(([, entries], layer) => {
    for (const entry of entries) {
      const hit = entry.endsWith('/') ? file.startsWith(entry) : file === entry;
      if (hit && entry.length > bestLength) [best, bestLength] = [layer, entry.length];
    }
  });
  return best;
}

/** Imports that go up a layer: [{from, to, fromLayer, toLayer}]. */
export function upwardImports(edges, layers = LAYERS) {
  const found = [];
  for (const [from, targets] of edges) {
    for (const to of targets) {
      const [a, b] = [layerOf(from, layers), layerOf(to, layers)];
      if (a >= 0 && b > a) found.push({ from, to, fromLayer: layers[a][0], toLayer: layers[b][0] });
    }
  }
  return found;
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return SOURCE.test(e.name) ? [full] : [];
  });
}

// The module paths a file names: import/export ... from 'x', import 'x', import('x').
function specifiers(file, text) {
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS));
  return found;
}

/** The import graph of js/: {files: [rel], edges: Map(rel -> Set(rel)), lines: Map(rel -> n)}. */
export function importGraph() {
  const rel = (f) => path.relative(root, f).split(path.sep).join('/');
  const files = sourceFiles(jsDir).sort();
  const edges = new Map();
  const lines = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    lines.set(rel(file), text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    const targets = new Set();
    for (const spec of specifiers(file, text)) {
      if (!spec.startsWith('./') && !spec.startsWith('../')) continue; // packages, node: builtins
      const target = path.resolve(path.dirname(file), spec);
      if (target.startsWith(jsDir + path.sep) && SOURCE.test(target)) targets.add(rel(target));
    }
    edges.set(rel(file), targets);
  }
  return { files: files.map(rel), edges, lines };
}

// Every cycle, each once, as a path [a, b, ..., a] (Tarjan's strongly connected components, then
// one shortest cycle through each component's first file). Self-imports are not cycles here.
export function findCycles(edges) {
  let index = 0;
  const info = new Map();
  const stack = [];
  const components = [];
  const strong = (v) => {
    info.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (w === v) continue;
      if (!info.has(w)) {
        strong(w);
        info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
      } else if (info.get(w).onStack) {
        info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
      }
    }
    if (info.get(v).low === info.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        info.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!info.has(v)) strong(v);
  return components.map((component) => {
    const inside = new Set(component);
    const start = component[0];
    // Breadth-first from start back to start, inside the component.
    const from = new Map([[start, null]]);
    const queue = [start];
    while (queue.length) {
      const v = queue.shift();
      for (const w of edges.get(v) ?? []) {
        if (!inside.has(w) || w === v) continue;
        if (w === start) {
          const cycle = [start]; // start -> ... -> v -> start
          for (let u = v; u !== null; u = from.get(u)) cycle.unshift(u);
          return { files: component, cycle };
        }
        if (!from.has(w)) {
          from.set(w, v);
          queue.push(w);
        }
      }
    }
    return { files: component, cycle: component };
  });
}

function main() {
  const { files, edges, lines } = importGraph();
  const unplaced = files.filter((file) => layerOf(file) < 0);
  const upward = upwardImports(edges);
  const cycles = findCycles(edges);
  const long = [...lines].filter(([, n]) => n > MAX_LINES).map(([file, n]) => ({ file, lines: n }));
  const broken = unplaced.length + upward.length + cycles.length + long.length;
  if (process.argv.includes('--json')) {
    const plainEdges = Object.fromEntries([...edges].map(([f, to]) => [f, [...to].sort()]));
    process.stdout.write(JSON.stringify({ files, edges: plainEdges, unplaced, upward, cycles, long }, null, 2) + '\n');
  } else {
    for (const file of unplaced) console.log(`${file}: in no layer (add it to LAYERS in scripts/check-imports.mjs)`);
    for (const u of upward) console.log(`upward import: ${u.from} (${u.fromLayer}) -> ${u.to} (${u.toLayer})`);
    for (const { files: group, cycle } of cycles) {
      console.log(`import cycle of ${group.length} files: ${cycle.join(' -> ')}`);
    }
    for (const { file, lines: n } of long) console.log(`${file}: ${n} lines (at most ${MAX_LINES})`);
    if (!broken) console.log(`js/: ${files.length} files in ${LAYERS.length} layers, no upward import, no import cycle, none over ${MAX_LINES} lines`);
  }
  process.exitCode = broken ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
