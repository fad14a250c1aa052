// Types of the CommonJS entry of numdecode/worker (js/worker/index.cjs).
// resolution-mode: under moduleResolution node16 a CommonJS file may only type-import ESM this way.
import type * as esm from './index.js' with { 'resolution-mode': 'import' };

export type { WorkerJob, PcoJob, RunOptions, DecodeManyOptions, WorkerPoolStats, WorkerPoolOptions, WorkerPool } from './index.js' with { 'resolution-mode': 'import' };

export const createWorkerPool: typeof esm.createWorkerPool;
/** The ES module: WorkerPool, planBatches, ... */
export function load(): Promise<typeof esm>;
