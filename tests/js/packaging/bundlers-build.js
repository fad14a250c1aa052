// Builds tests/bundlers/app with one bundler and its user config (tests/bundlers/<name>.config.js)
// into a temp dir, as a user's project would: the app folder gets node_modules/numdecode (a link
// to this package) and node_modules/zarrita. Nothing is written inside the project.
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../helpers/corpus.js';

export const BUNDLERS = ['vite', 'webpack', 'esbuild', 'rollup'];
const bundlersDir = path.join(projectRoot, 'tests/bundlers');

/** A fresh user project: the app's files and node_modules links. Returns its directory. */
export function makeAppDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'numdecode-app-'));
  cpSync(path.join(bundlersDir, 'app'), dir, { recursive: true });
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(projectRoot, path.join(dir, 'node_modules/numdecode'), 'dir');
  symlinkSync(path.join(projectRoot, 'node_modules/zarrita'), path.join(dir, 'node_modules/zarrita'), 'dir');
  return dir;
}

// numdecode's runtime dependencies, linked into a user project beside an installed copy.
const DEPENDENCIES = ['h5wasm', 'hyparquet', 'hyparquet-compressors'];

/**
 * A user project with numdecode installed as a copy (js/, dist/, package.json), as npm leaves
 * it, not a link: the Vite dev server pre-bundles installed packages but not linked ones.
 */
export function makeInstalledAppDir() {
  const dir = makeAppDir();
  const pkg = path.join(dir, 'node_modules/numdecode');
  rmSync(pkg);
  mkdirSync(pkg);
  for (const f of ['js', 'dist', 'package.json']) cpSync(path.join(projectRoot, f), path.join(pkg, f), { recursive: true });
  for (const d of DEPENDENCIES) symlinkSync(path.join(projectRoot, 'node_modules', d), path.join(dir, 'node_modules', d), 'dir');
  return dir;
}

/** The user's config for `name` (tests/bundlers/<name>.config.js). */
export async function userConfig(name) {
  return (await import(pathToFileURL(path.join(bundlersDir, `${name}.config.js`)).href)).default;
}

// The page that loads a bundle whose entry is main.js (Vite writes its own from index.html).
function writeIndex(outDir, script, type = 'module') {
  writeFileSync(
    path.join(outDir, 'index.html'),
    `<!doctype html><meta charset="utf-8"><p id="status">loading…</p><script type="${type}" src="./${script}"></script>\n`,
  );
}

const builders = {
  async vite(appDir, outDir) {
    const { build } = await import('vite');
    await build({ ...(await userConfig('vite')), root: appDir, configFile: false, logLevel: 'error', base: './', build: { outDir, emptyOutDir: true } });
  },
  async webpack(appDir, outDir) {
    const { default: webpack } = await import('webpack');
    const config = { ...(await userConfig('webpack')), context: appDir, output: { path: outDir } };
    const stats = await new Promise((resolve, reject) => webpack(config, (err, s) => (err ? reject(err) : resolve(s))));
    if (stats.hasErrors()) throw new Error(stats.toString({ all: false, errors: true }));
    writeIndex(outDir, 'main.js', 'text/javascript');
  },
  async esbuild(appDir, outDir) {
    const esbuild = await import('esbuild');
    await esbuild.build({ ...(await userConfig('esbuild')), absWorkingDir: appDir, outdir: outDir, logLevel: 'warning' });
    writeIndex(outDir, 'main.js');
  },
  async rollup(appDir, outDir) {
    const { rollup } = await import('rollup');
    const cwd = process.cwd();
    // As `npx rollup -c` in the app folder: inputs and node-resolve's rootDir are the working directory.
    process.chdir(appDir);
    try {
      const { output, ...input } = await userConfig('rollup');
      const bundle = await rollup({ ...input, onwarn: () => {} });
      await bundle.write({ ...output, dir: outDir });
      await bundle.close();
    } finally {
      process.chdir(cwd);
    }
    writeIndex(outDir, 'main.js');
  },
};

/** Builds the app with `name` into appDir/out-<name>; returns the output directory. */
export async function buildApp(name, appDir) {
  const outDir = path.join(appDir, `out-${name}`);
  await builders[name](appDir, outDir);
  return outDir;
}

export function removeAppDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}
