// numdecode's CLI run as a user runs it: bin/numdecode.js in a child process. Asynchronous, so that
// an HTTP server in the test's own process keeps answering while the command runs.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from './corpus.js';

export const bin = path.join(projectRoot, 'bin/numdecode.js');

/**
 * @param {...string} args
 * @returns {Promise<{status: number | null, stdout: string, bytes: Buffer, stderr: string}>} bytes: stdout as written
 */
export function runCli(...args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: projectRoot });
    const out = [];
    let stderr = '';
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => {
      const bytes = Buffer.concat(out);
      resolve({ status, stdout: bytes.toString(), bytes, stderr });
    });
  });
}
