// Compiled (not run) by tests/js/packaging/declarations.test.js: list() of js/zarr.d.ts through
// the package entry "numdecode/zarr". A node narrows on `kind` (an array's shape, chunks and codecs
// only after kind === 'array'), a codec's decoder on its literal, errors on ZarrError: no casts;
// openArray() gives read() an array of the listing.
import { list, LocalStore, openArray, read, ZarrError } from 'numdecode/zarr';
import type { Dtype, ZarrArrayNode, ZarrListing, ZarrNode, ZarrOpenedArray } from 'numdecode/zarr';

export async function listing(url: string, dir: string, signal: AbortSignal) {
  const remote: ZarrListing = await list(url, { hints: ['t2m'], signal, name: 'era5' });
  const local = await list(new LocalStore(dir));
  const keyed = await list(dir, { listMetadataKeys: () => ['/zarr.json', '/t2m/zarr.json'] });
  const complete: boolean = remote.complete && local.consolidated && keyed.zarrFormat === 3;
  const rootKind: 'group' | 'array' = remote.kind;
  for (const node of remote.nodes) {
    const path: string = node.path;
    // @ts-expect-error: a group has no shape; only kind === 'array' shows it
    void node.shape;
    if (node.kind === 'array') {
      const shape: number[] = node.shape;
      const chunks: number[] | null = node.chunks;
      const shards: number[] | null = node.shards;
      const index: 'start' | 'end' | null = node.indexLocation;
      const dtype: Dtype | null = node.dtype;
      const order: 'C' | 'F' | null = node.order;
      const format: 2 | 3 = node.zarrFormat;
      const fill: unknown = node.fillValue;
      for (const codec of node.codecs) {
        const config: Record<string, unknown> = codec.configuration;
        if (codec.decoder === null) console.log(`${codec.name} is not decoded here`, config);
        else if (codec.decoder === 'numdecode') console.log(codec.name, codec.role, codec.depth);
      }
      const missing: string[] = node.undecodableCodecs;
      console.log(path, shape, chunks, shards, index, dtype, order, format, fill, missing, node.dimensionNames?.[0], node.v2Dtype);
    } else {
      const kind: 'group' = node.kind;
      const attributes: Record<string, unknown> = node.attributes;
      console.log(kind, attributes);
    }
  }
  const arrays: ZarrArrayNode[] = remote.nodes.filter((n): n is ZarrArrayNode => n.kind === 'array');
  const first: ZarrNode | undefined = local.nodes[0];
  for (const err of remote.errors) {
    const e: ZarrError = err;
    console.log(e.code, e.file, e.array, e.status);
  }
  return { complete, rootKind, arrays, first };
}

export async function guarded(url: string) {
  try {
    return await list(url);
  } catch (err) {
    if (err instanceof ZarrError && err.code === 'ERR_NOT_FOUND') return null;
    throw err;
  }
}

// An array of the listing opened for numdecode's read (float16 and start-index shards included).
export async function readListed(url: string, signal: AbortSignal) {
  const { nodes } = await list(url);
  const first = nodes.find((n): n is ZarrArrayNode => n.kind === 'array' && n.undecodableCodecs.length === 0);
  if (!first) return null;
  const arr: ZarrOpenedArray = await openArray(url, first.path, { signal });
  const { data, shape, stride } = await read(arr, { selection: [0], signal });
  return { data, shape, stride, dtype: first.dtype };
}
