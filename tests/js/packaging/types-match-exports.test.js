// The declarations cannot drift from the code: for every entry of package.json "exports", the
// values its .d.ts declares (read with TypeScript's checker: exports that are values, not only
// types) are exactly the names the module exports at run time, and so are the members of each
// namespace it exports (pco, alp, bpcells, io). The .d.ts files are written by hand (they say more
// than JSDoc would: unions discriminated on dtype, overloads per dtype); this test and the usage
// files under tests/types/ are what keep them true.
import { expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { projectRoot } from '../helpers/corpus.js';

const ts = createRequire(import.meta.url)('typescript');
const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));
const entries = Object.entries(pkg.exports)
  .filter(([, v]) => typeof v === 'object' && v.types)
  .map(([key, v]) => [`numdecode${key.slice(1)}`, v]);

const program = ts.createProgram(
  entries.map(([, v]) => path.join(projectRoot, v.types)),
  { strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 },
);
const checker = program.getTypeChecker();
const resolved = (s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
const isValue = (s) => (resolved(s).flags & ts.SymbolFlags.Value) !== 0;

// name -> null (a value) or the sorted value members of a namespace export.
function declaredValues(moduleSymbol) {
  const out = {};
  for (const s of checker.getExportsOfModule(moduleSymbol).filter(isValue)) {
    const target = resolved(s);
    out[s.name] = target.flags & ts.SymbolFlags.ValueModule ? checker.getExportsOfModule(target).filter(isValue).map((m) => m.name).sort() : null;
  }
  return out;
}

test.each(entries)('%s: the .d.ts declares exactly what the module exports', async (_name, entry) => {
  const declared = declaredValues(checker.getSymbolAtLocation(program.getSourceFile(path.join(projectRoot, entry.types))));
  const mod = await import(path.join(projectRoot, entry.default));
  expect(Object.keys(mod).sort()).toEqual(Object.keys(declared).sort());
  for (const [name, members] of Object.entries(declared)) {
    if (members !== null) expect([name, Object.keys(mod[name]).sort()]).toEqual([name, members]);
  }
});
