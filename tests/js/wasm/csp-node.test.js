// numdecode under a no-eval runtime: Node with code generation from strings disallowed (what a
// strict Content-Security-Policy, an MV3 extension or an edge worker enforces). The corpus checks
// run in a child process (csp-check.mjs), because Jest's module sandbox does not inherit the flag.
import { expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../helpers/corpus.js';

const script = path.join(projectRoot, 'tests/js/wasm/csp-check.mjs');

function runChecks(build) {
  const out = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', script, build], {
    encoding: 'utf8',
    timeout: 120000,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').pop());
}

test.each(['simd', 'scalar'])('the %s build decodes the Pco, ALP and BPCells corpus with eval disallowed', (build) => {
  const r = runChecks(build);
  expect(r.codegenBlocked).toBe(true); // the flag is in force: new Function threw EvalError
  expect(r.pco.checked).toBeGreaterThan(50);
  expect(r.alp.checked).toBeGreaterThan(20);
  expect(r.bpcells.checked).toBeGreaterThan(10);
  expect(r.pco.wrong).toEqual([]);
  expect(r.alp.wrong).toEqual([]);
  expect(r.bpcells.wrong).toEqual([]);
});
