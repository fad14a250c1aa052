// CRC-32C (Castagnoli), the checksum Zarr v3's crc32c codec appends to a shard index: a damaged
// index names other chunks' bytes, which decode into wrong values without an error.
let table = null;

function makeTable() {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}

/** The CRC-32C of `bytes`, as an unsigned 32-bit number. */
export function crc32c(bytes) {
  table ??= makeTable();
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = table[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
