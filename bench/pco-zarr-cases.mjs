// Pco cases made of Zarr chunks the reference pcodec wrote (../shared/corpus/zarr-pcodec/): the
// corpus has no large u16, u8 or f32 standalone Pco file and nothing here writes Pco, but every
// chunk of these stores is one standalone Pco file. zarrita reads the stores (shard indexes
// included) through js/zarr-explore, which hands back each chunk's stored bytes.
import { fileURLToPath } from 'node:url';
import { openZarr } from '../js/zarr-explore/explorer.js';

const stores = fileURLToPath(new URL('../../shared/corpus/zarr-pcodec/stores/', import.meta.url));

// Every stored chunk of an array, in grid order (chunks not written are skipped).
async function storedChunks(store, path, grid) {
  const files = [];
  const coords = grid.map(() => 0);
  for (;;) {
    const bytes = await store.chunkBytes(path, [...coords]);
    if (bytes) files.push(bytes);
    let d = grid.length - 1;
    while (d >= 0 && ++coords[d] === grid[d]) coords[d--] = 0;
    if (d < 0) return files;
  }
}

const gridOf = (shape, chunks) => shape.map((n, d) => Math.ceil(n / chunks[d]));

async function arrayCase(storeName, path, dtype, name, note) {
  const store = await openZarr(`${stores}${storeName}`, { hints: [path.slice(1)] });
  const node = store.nodes.find((n) => n.path === path);
  const { shape, chunks } = node.description;
  const files = await storedChunks(store, path, gridOf(shape, chunks));
  return { name, dtype, files, source: `zarr-pcodec/${storeName}${path}`, note };
}

/** [{name, dtype, files: Uint8Array[], source, note}], each file a standalone Pco file. */
export async function zarrPcoCases() {
  return [
    await arrayCase('sharded_v3.zarr', '/counts', 'u16', 'u16 counts', 'inner chunks of 256x256 from 2x2 shards; Classic + delta'),
    await arrayCase('era5_like_v3.zarr', '/t2m', 'f32', 'f32 t2m', 'chunks of 1x91x180; Classic + delta order 2'),
    await arrayCase('era5_like_v3.zarr', '/tp', 'f32', 'f32 tp', 'chunks of 12x64x128, 3 pages each; FloatMult / Classic + delta'),
    // Stands in for issue 16's "u8 16M", which cannot be made here: small chunks, decoded in turn.
    await arrayCase('dtypes_v3.zarr', '/uint8', 'u8', 'u8 chunks', 'chunks of 2048; Classic + delta'),
  ];
}
