// numdecode/worker: decode in Web Workers (browsers) or worker_threads (Node).
import type { DecodedArray } from '../dtypes.js';
import type { BuildInfo, InitOptions } from '../wasm/load.js';
import type { PcoChunk, PcoEncodeStandaloneOptions, PcoEncodeWrappedOptions, PcoFileInfo, PcoWrappedEncoding } from '../pco.js';
export { CODES, NumdecodeError } from '../errors.js';

/** A job: format is an export of numdecode ('pco', 'alp', 'bpcells', ...), op one of its functions. */
export interface WorkerJob {
  format: string;
  op: string;
  args?: unknown[];
}

/** Pco jobs with typed results. */
export type PcoJob =
  | { format: 'pco'; op: 'decode'; args: [Uint8Array] }
  | { format: 'pco'; op: 'decodeChunks'; args: [Uint8Array] }
  | { format: 'pco'; op: 'inspect'; args: [Uint8Array] }
  | { format: 'pco'; op: 'encode'; args: [ArrayBufferView | readonly (number | bigint)[], PcoEncodeStandaloneOptions?] }
  | { format: 'pco'; op: 'encodeWrapped'; args: [ArrayBufferView | readonly (number | bigint)[], PcoEncodeWrappedOptions?] };

export interface RunOptions {
  /** Move the arguments' ArrayBuffers into the worker instead of copying (they detach here). */
  transfer?: boolean;
  /** Abort the job: rejected with ERR_ABORTED; a queued job is dropped, a running job's worker replaced. */
  signal?: AbortSignal;
}

export interface DecodePcoOptions extends RunOptions {
  /** Passed to pco.decode in the worker. */
  maxOutputBytes?: number;
}

export interface DecodeManyOptions extends DecodePcoOptions {
  /** false: one message per file instead of batches (default true). */
  batch?: boolean;
}

export interface WorkerPoolStats {
  size: number;
  busy: number;
  /** Messages waiting, or posted to a worker that is running another. */
  queued: number;
  /** Jobs that succeeded: each job of a batch, each file of decodePcoMany. */
  completed: number;
  /** Jobs that failed. */
  failed: number;
}

export interface WorkerPoolOptions {
  /** Number of workers (default: the number of CPU cores). */
  size?: number;
  /** Options for init() in each worker. */
  init?: InitOptions;
}

export class WorkerPool {
  /** Number of workers. */
  readonly size: number;
  /** {simd, version} of the module the workers loaded. */
  buildInfo: BuildInfo | null;
  run(job: { format: 'pco'; op: 'decode'; args: [Uint8Array] }, options?: RunOptions): Promise<DecodedArray>;
  run(job: { format: 'pco'; op: 'decodeChunks'; args: [Uint8Array] }, options?: RunOptions): Promise<PcoChunk[]>;
  run(job: { format: 'pco'; op: 'inspect'; args: [Uint8Array] }, options?: RunOptions): Promise<PcoFileInfo>;
  /** Encodes in the worker (its encoder module loads on the first encode job). */
  run(job: { format: 'pco'; op: 'encode'; args: [ArrayBufferView | readonly (number | bigint)[], PcoEncodeStandaloneOptions?] }, options?: RunOptions): Promise<Uint8Array>;
  run(job: { format: 'pco'; op: 'encodeWrapped'; args: [ArrayBufferView | readonly (number | bigint)[], PcoEncodeWrappedOptions?] }, options?: RunOptions): Promise<PcoWrappedEncoding>;
  run<T = unknown>(job: WorkerJob, options?: RunOptions): Promise<T>;
  /** Several jobs in one worker, one message each way. Rejects with the first failure (err.jobIndex). */
  runBatch<T = unknown>(jobs: WorkerJob[], options?: RunOptions): Promise<T[]>;
  decodePco(bytes: Uint8Array, options?: DecodePcoOptions): Promise<DecodedArray>;
  decodePcoMany(files: Iterable<Uint8Array>, options?: DecodeManyOptions): Promise<DecodedArray[]>;
  stats(): WorkerPoolStats;
  /** Stops the workers; queued and running jobs reject. */
  terminate(): Promise<void>;
  /** terminate() by the name every other numdecode resource closes with. */
  close(): Promise<void>;
}

export function createWorkerPool(options?: WorkerPoolOptions): Promise<WorkerPool>;
/** How decodePcoMany groups items of these byte sizes into batches for this many workers. */
export function planBatches(sizes: number[], workers: number): number[][];
