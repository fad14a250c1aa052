// Headless Chromium for the browser tests (zarr-browser.test.js, worker-browser.test.js): the
// system Chromium driven by playwright-core, with a fresh profile, and a static server on
// 127.0.0.1 for the project (pages import /js and /node_modules) plus extra mounts.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { createStaticServer } from '../../../scripts/serve.mjs';
import { corpusRoot, projectRoot } from './corpus.js';

export const CHROMIUM = process.env.NUMDECODE_CHROMIUM ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Starts the server and the browser. mounts: extra [urlPrefix, dir] pairs. Returns {page, base, pageErrors, close}. */
export async function openBrowser(mounts = []) {
  const server = createStaticServer({
    mounts: [['/', projectRoot], ['/corpus/', corpusRoot], ...mounts],
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const profile = mkdtempSync(path.join(os.tmpdir(), 'numdecode-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  } catch (err) {
    server.close();
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  // Uncaught errors only: console errors include the 404s zarrita's metadata probing causes.
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  return {
    page,
    base,
    pageErrors,
    async close() {
      await context.close();
      await new Promise((resolve) => server.close(resolve));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
