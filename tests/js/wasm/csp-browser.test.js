// numdecode in headless Chromium on a page whose Content-Security-Policy forbids eval and
// new Function (`script-src 'self' 'wasm-unsafe-eval'`, what MV3 extensions and strict sites use):
// Pco, ALP and BPCells decode the corpus bit-exactly with both builds.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { corpusRoot, pcoCases, pcoDir, readBytes, readJson, sha256 } from '../helpers/corpus.js';
import { openBrowser } from '../helpers/chromium.js';

const CSP = "script-src 'self' 'wasm-unsafe-eval'";
let browser;

beforeAll(async () => {
  browser = await openBrowser();
  // The static server sends no CSP: add it to the page's own response.
  await browser.page.route('**/tests/js/wasm/csp-browser.html', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': CSP } });
  });
});

afterAll(async () => {
  await browser?.close();
});

const pcoPicked = pcoCases().filter((c) => c.format === 'standalone' && c.dtype !== 'mixed' && c.expected && /^classic_/.test(c.name));
const alpDir = path.join(corpusRoot, 'alp');
const alpPicked = readJson(alpDir, 'manifest.json').filter((c) => c.expected && c.n > 0).slice(0, 12);
const bpDir = path.join(corpusRoot, 'bpcells');
const bpPicked = readJson(bpDir, 'manifest.json').filter((c) => c.nnz > 0).slice(0, 4);

test.each([true, false])('simd=%s: the corpus decodes bit-exactly with eval forbidden', async (simd) => {
  await browser.page.goto(`${browser.base}/tests/js/wasm/csp-browser.html`);
  await browser.page.waitForFunction(() => window.pageReady === true, null, { timeout: 30000 });
  const out = await browser.page.evaluate((args) => window.runChecks(args), {
    simd,
    pcoFiles: pcoPicked.map((c) => c.file),
    alpPages: alpPicked.map((c) => [c.file, c.dtype === 'float32' ? 'f32' : 'f64']),
    matrices: bpPicked.map((c) => c.dir),
  });
  expect(out.evalBlocked).toBe(true); // the policy is in force in the page
  expect(pcoPicked.length).toBeGreaterThan(8);
  for (const c of pcoPicked) expect([c.name, out.pco[c.file]]).toEqual([c.name, sha256(readBytes(pcoDir, c.expected))]);
  for (const c of alpPicked) expect([c.name, out.alp[c.file]]).toEqual([c.name, sha256(readBytes(alpDir, c.expected))]);
  for (const c of bpPicked) {
    const exp = path.join(bpDir, c.expected);
    const ext = { uint32: 'u32', float32: 'f32', float64: 'f64' }[c.dtype];
    expect(out.bpcells[c.dir]).toEqual({
      index: sha256(new Uint8Array(readFileSync(path.join(exp, 'index.u32')))),
      val: sha256(new Uint8Array(readFileSync(path.join(exp, `val.${ext}`)))),
      nnz: c.nnz,
    });
  }
  expect(browser.pageErrors).toEqual([]);
});
