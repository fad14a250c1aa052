// Compiled (not run) by `tsc -p tests/types`: numdecode/zarr, numdecode/worker, pco.decodeView.
// (zarrita-usage.ts checks registerPcodec against zarrita's own types, in tsconfig.zarrita.json:
// zarrita's dependencies ship .d.ts files that fail a strict lib check.)
import { init, pco } from 'numdecode';
import type { PcoView, PcoViewStats, DecodedArray, PcoFileInfo, PcoChunk } from 'numdecode';
import { registerPcodec, pcodecCodecEntry, PcodecCodec, PCODEC_CODEC_NAMES } from 'numdecode/zarr';
import type { PcodecConfiguration, ZarrChunk } from 'numdecode/zarr';
import { createWorkerPool, planBatches, WorkerPool } from 'numdecode/worker';
import type { WorkerJob, WorkerPoolStats } from 'numdecode/worker';

// The shape of zarrita's registry: Map<string, () => Promise<CodecEntry>>.
type ZarritaLikeRegistry = Map<string, () => Promise<{ fromConfig: (config: unknown, meta: any) => unknown; kind?: string }>>;
declare const zarritaRegistry: ZarritaLikeRegistry;

export async function zarrExample(chunkBytes: Uint8Array) {
  const registry = registerPcodec(zarritaRegistry);
  const same: ZarritaLikeRegistry = registry;
  registerPcodec(zarritaRegistry, { init: { simd: 'auto' } });
  const names: readonly string[] = PCODEC_CODEC_NAMES;

  const config: PcodecConfiguration = { level: 8, mode_spec: 'auto', delta_encoding_order: null, equal_pages_up_to: 262144 };
  const codec = PcodecCodec.fromConfig(config, { dataType: 'float64', shape: [100], codecs: [] });
  const kind: 'array_to_bytes' = codec.kind;
  const chunk: ZarrChunk = await codec.decode(chunkBytes);
  const entryKind: 'array_to_bytes' = pcodecCodecEntry().kind;
  // @ts-expect-error: the registry is required
  registerPcodec();
  return { same, names, chunk, kind, entryKind };
}

export async function workerExample(files: Uint8Array[]) {
  const pool: WorkerPool = await createWorkerPool({ size: 2, init: { simd: false } });
  const one: DecodedArray = await pool.decodePco(files[0], { transfer: true });
  const many: DecodedArray[] = await pool.decodePcoMany(files, { batch: false });
  const info: PcoFileInfo = await pool.run({ format: 'pco', op: 'inspect', args: [files[0]] });
  const chunks: PcoChunk[] = await pool.run({ format: 'pco', op: 'decodeChunks', args: [files[0]] });
  const job: WorkerJob = { format: 'alp', op: 'decode', args: [files[0], 'f64'] };
  const generic = await pool.run<Float64Array>(job);
  const batch: DecodedArray[] = await pool.runBatch<DecodedArray>([job, job]);
  const stats: WorkerPoolStats = pool.stats();
  const plan: number[][] = planBatches([1, 2, 3], pool.size);
  // zarr chunks decoded in the pool
  registerPcodec(zarritaRegistry, { pool });
  await pool.terminate();
  // @ts-expect-error: a job needs an op
  pool.run({ format: 'pco' });
  return { one, many, info, chunks, generic, batch, stats, plan };
}

export async function viewExample(bytes: Uint8Array) {
  await init();
  const view: PcoView = pco.decodeView(bytes);
  const values: DecodedArray = view.values;
  const dtype = view.dtype;
  view.release();
  const released: boolean = view.released;
  const stats: PcoViewStats = pco.viewStats();
  // @ts-expect-error: values is read-only
  view.values = new Float64Array(1);
  return { values, dtype, released, stats };
}
