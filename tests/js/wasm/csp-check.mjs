// Run by csp-node.test.js as `node --disallow-code-generation-from-strings csp-check.mjs`: the
// corpus checks of Pco, ALP and BPCells in a process where eval / new Function throw (what a
// page with a strict Content-Security-Policy, an MV3 extension or an edge worker allows).
// Prints one JSON line: {codegenBlocked, pco: {checked, wrong}, alp: {...}, bpcells: {...}}.
// (Jest cannot host this check: its module sandbox does not inherit the V8 flag.)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { alp, bpcells, init, pco } from '../../../js/index.js';
import { corpusRoot, pcoDir, readBytes, readJson, sha256 } from '../helpers/corpus.js';

const same = (a, b) => a.byteLength === b.byteLength && Buffer.from(a).equals(Buffer.from(b));
const bytesOf = (t) => new Uint8Array(t.buffer, t.byteOffset, t.byteLength);

let codegenBlocked = false;
try {
  new Function('return 1')(); // eslint-disable-line no-new-func
} catch (err) {
  codegenBlocked = err instanceof EvalError;
}

await init({ simd: process.argv[2] !== 'scalar' });
const report = { codegenBlocked, pco: { checked: 0, wrong: [] }, alp: { checked: 0, wrong: [] }, bpcells: { checked: 0, wrong: [] } };

for (const c of readJson(pcoDir, 'manifest.json')) {
  if (c.format !== 'standalone' || c.dtype === 'mixed') continue;
  const got = bytesOf(pco.decode(readBytes(pcoDir, c.file)));
  const ok = c.expected ? same(got, readBytes(pcoDir, c.expected)) : sha256(got) === c.sha256_of_expected;
  report.pco.checked++;
  if (!ok) report.pco.wrong.push(c.name);
}

const alpDir = path.join(corpusRoot, 'alp');
for (const c of readJson(alpDir, 'manifest.json')) {
  const dtype = c.dtype === 'float32' ? 'f32' : 'f64';
  const got = bytesOf(alp.decode(readBytes(alpDir, c.file), dtype));
  const ok = c.expected ? same(got, readBytes(alpDir, c.expected)) : sha256(got) === c.sha256_of_expected;
  report.alp.checked++;
  if (!ok) report.alp.wrong.push(c.name);
}

const bpDir = path.join(corpusRoot, 'bpcells');
for (const c of readJson(bpDir, 'manifest.json')) {
  const m = await bpcells.open(path.join(bpDir, c.dir));
  const r = await m.read();
  const exp = path.join(bpDir, c.expected);
  const ext = { uint32: 'u32', float32: 'f32', float64: 'f64' }[c.dtype];
  const ptr = Float64Array.from(new BigUint64Array(new Uint8Array(readFileSync(path.join(exp, 'idxptr.u64'))).buffer), Number);
  const ok =
    same(bytesOf(r.idxptr), bytesOf(ptr)) &&
    same(bytesOf(r.index), new Uint8Array(readFileSync(path.join(exp, 'index.u32')))) &&
    same(bytesOf(r.val), new Uint8Array(readFileSync(path.join(exp, `val.${ext}`))));
  report.bpcells.checked++;
  if (!ok) report.bpcells.wrong.push(c.name);
}

console.log(JSON.stringify(report));
