// Where the chunks of a 1-D chunked dataset lie, learned from the version-1 B-tree nodes HDF5
// itself reads: a prefetch planner, never a reader. h5wasm does not expose HDF5's chunk queries
// (H5Dget_chunk_info, H5Dchunk_iter are not in its build), so the nodes are decoded here from the
// bytes HDF5 has already read; the values a caller gets are always HDF5's. A node decoded wrongly
// (a damaged file) costs a useless prefetch, never a wrong value.
//
// Version-1 B-tree node of a chunked dataset (HDF5 file format spec, "Version 1 B-trees"):
//   "TREE", node type (1 = raw data chunks), level (0 = leaf), entries used (u16),
//   left and right sibling addresses, then key 0, child 0, key 1, ..., key n.
//   A key: chunk size in bytes (u32), filter mask (u32), one u64 offset per dimension plus one
//   (always 0, the datatype's). A child: a chunk's address (leaf) or a node's (level > 0).

const SIGNATURE = [0x54, 0x52, 0x45, 0x45]; // "TREE"
const HEADER = 24; // signature, type, level, entries used, two sibling addresses (8-byte addresses)
const ADDR = 8;
const KEY1 = 24; // a key of a rank-1 dataset: size, filter mask, two offsets
const MAX_LEVEL = 32;

/** True when `bytes` (what HDF5 just read at some address) start a chunk B-tree node. */
export function isChunkNode(bytes) {
  return bytes.length > HEADER && bytes[0] === SIGNATURE[0] && bytes[1] === SIGNATURE[1] && bytes[2] === SIGNATURE[2] && bytes[3] === SIGNATURE[3] && bytes[4] === 1;
}

/**
 * Decodes a chunk B-tree node of a dataset of `rank` dimensions: {level, keys, children, sizes}
 * (keys[i]: the first element, along dimension 0, of child i's chunks; sizes[i]: chunk i's stored
 * bytes, leaves only), or null when the bytes are not a sound node of a `fileSize`-byte file.
 */
export function decodeChunkNode(bytes, rank, fileSize) {
  if (!isChunkNode(bytes)) return null;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const level = bytes[5];
  const used = dv.getUint16(6, true);
  const keySize = 8 + 8 * (rank + 1);
  if (used === 0 || HEADER + used * (keySize + ADDR) + keySize > bytes.length) return null;
  const keys = [];
  const children = [];
  const sizes = [];
  let at = HEADER;
  for (let i = 0; i < used; i++) {
    const offset = Number(dv.getBigUint64(at + 8, true));
    const child = Number(dv.getBigUint64(at + keySize, true));
    if (!(child < fileSize) || (i > 0 && offset <= keys[i - 1])) return null;
    sizes.push(dv.getUint32(at, true));
    keys.push(offset);
    children.push(child);
    at += keySize + ADDR;
  }
  return { level, keys, children, sizes };
}

/**
 * The chunk B-trees of one file as HDF5 reads them: `saw(path, address, bytes)` records a node
 * read for the dataset at `path` (the highest-level node read is the root); `locate()` walks
 * down from the root through the nodes in the block cache.
 */
export class ChunkIndex {
  /** cache: {peek(start, end): cached bytes or null, has(start, end): whether cached, maxBytes: what a plan may fetch}. */
  constructor(cache, fileSize) {
    this.peek = cache.peek;
    this.has = cache.has;
    this.maxBytes = cache.maxBytes;
    this.fileSize = fileSize;
    this.roots = new Map(); // path -> {address, length, level}
    this.nodes = new Map(); // address -> decoded node (the file is read-only)
  }

  _node(address, length) {
    let node = this.nodes.get(address);
    if (node === undefined) {
      const bytes = this.peek(address, address + length);
      if (!bytes) return undefined;
      node = decodeChunkNode(bytes, 1, this.fileSize);
      this.nodes.set(address, node);
    }
    return node;
  }

  saw(path, address, bytes) {
    // A node of a rank-1 dataset is read whole: 24 + 24 + 2K x 32 bytes (K: the file's chunk
    // B-tree rank, 32 by default). Other reads that happen to start with "TREE" are not taken.
    if (!path || !isChunkNode(bytes) || (bytes.length - HEADER - KEY1) % (2 * (KEY1 + ADDR)) !== 0 || bytes[5] > MAX_LEVEL) return;
    const root = this.roots.get(path);
    if (!root || bytes[5] > root.level) this.roots.set(path, { address, length: bytes.length, level: bytes[5] });
  }

  /** Whether the root of `path`'s chunk B-tree has been seen. */
  knows(path) {
    return this.roots.has(path);
  }

  /**
   * Where element `element` of the rank-1 dataset `path` (chunks of `chunk` elements) lies:
   * {chunk: [start, end)} (its stored bytes), {node: [start, end)} (the next B-tree node to fetch
   * on the way), or null (no root seen yet, a chunk never written, a node that does not decode).
   */
  locate(path, element, chunk) {
    const root = this.roots.get(path);
    if (!root) return null;
    let address = root.address;
    for (let depth = 0; depth <= root.level; depth++) {
      const node = this._node(address, root.length);
      if (node === undefined) return { node: [address, address + root.length] };
      if (node === null) return null;
      let i = node.keys.length - 1;
      while (i > 0 && node.keys[i] > element) i--;
      if (node.level === 0) {
        if (node.keys[i] > element || node.keys[i] + chunk <= element) return null;
        const start = node.children[i];
        return { chunk: [start, Math.min(this.fileSize, start + node.sizes[i])] };
      }
      address = node.children[i];
    }
    return null;
  }

  /**
   * Byte ranges to fetch so that elements [i0, i1) of `path` (chunks of `chunk` elements) can be
   * read: each uncached chunk's bytes where its leaf is cached, else the node to fetch on the way
   * (once). `nodesOnly`: only the nodes (a guess of where a read will fall: no data fetched on a
   * guess). A plan stops at `maxBytes` (the rest is planned on a later pass) and skips a chunk
   * claiming over `maxChunkBytes` (a node misread: the read itself then finds out).
   */
  plan(path, chunk, i0, i1, { nodesOnly = false, maxChunkBytes = Infinity } = {}) {
    if (!this.roots.has(path) || !(chunk > 0) || i1 <= i0) return [];
    const out = [];
    const seen = new Set();
    let bytes = 0;
    for (let c = Math.floor(i0 / chunk); c <= Math.floor((i1 - 1) / chunk) && bytes < this.maxBytes; c++) {
      const where = this.locate(path, c * chunk, chunk);
      if (!where) continue;
      const range = where.node ?? (nodesOnly ? null : where.chunk);
      if (!range || seen.has(range[0]) || range[1] - range[0] > maxChunkBytes || this.has(range[0], range[1])) continue;
      seen.add(range[0]);
      out.push(range);
      bytes += range[1] - range[0];
    }
    return out;
  }
}
