// Types of the CommonJS entry of numdecode/worker (js/worker/index.cjs).
import type * as esm from './index.js';

export type { WorkerJob, PcoJob, RunOptions, DecodeManyOptions, WorkerPoolStats, WorkerPoolOptions, WorkerPool } from './index.js';

export const createWorkerPool: typeof esm.createWorkerPool;
/** The ES module: WorkerPool, planBatches, ... */
export function load(): Promise<typeof esm>;
