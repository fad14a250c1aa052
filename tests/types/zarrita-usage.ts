// Compiled (not run) by `tsc -p tests/types/tsconfig.zarrita.json`: numdecode/zarr against
// zarrita's real types (its registry, open, get).
import * as zarr from 'zarrita';
import { registerPcodec } from 'numdecode/zarr';
import { createWorkerPool } from 'numdecode/worker';

export async function read(url: string) {
  const registry: typeof zarr.registry = registerPcodec(zarr.registry);
  registerPcodec(zarr.registry, { pool: await createWorkerPool() });
  const arr = await zarr.open(new zarr.FetchStore(url), { kind: 'array' });
  const region = await zarr.get(arr, [zarr.slice(0, 10), null]);
  return { registry, region };
}
