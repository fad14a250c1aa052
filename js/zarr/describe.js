// What a Zarr array's metadata says, in list()'s words (js/zarr/list.js): shape, chunk and shard
// shape, data type (Zarr's name and numdecode's dtype), fill value, order, chunk key encoding, the
// codec chain with who decodes each codec, attributes and dimension names. Reads the metadata JSON
// as written (v2 or v3), so it also finds what nothing here decodes before a chunk is read.
import { CODES, ZarrError } from '../errors.js';
import { PCODEC_CODEC_NAMES } from './codec-names.js';

// Codecs zarrita 0.7.5 implements itself (besides what its registry holds).
const ZARRITA_BUILTIN = new Set(['sharding_indexed']);
// Registry entries zarrita loads from the separate numcodecs package.
const VIA_NUMCODECS = new Set(['blosc', 'lz4', 'zstd', 'numcodecs.blosc', 'numcodecs.lz4', 'numcodecs.zstd']);

const V2_DTYPES = {
  b1: 'bool', i1: 'int8', u1: 'uint8', i2: 'int16', u2: 'uint16', i4: 'int32', u4: 'uint32',
  i8: 'int64', u8: 'uint64', f2: 'float16', f4: 'float32', f8: 'float64',
};

// Zarr data type -> numdecode's dtype name (docs/vocabulary.md); others (bool, strings) have none.
const DTYPES = {
  int8: 'i8', uint8: 'u8', int16: 'i16', uint16: 'u16', int32: 'i32', uint32: 'u32', int64: 'i64', uint64: 'u64',
  float16: 'f16', float32: 'f32', float64: 'f64',
};

/** Zarr v2 dtype ("<f4") -> v3 data type name ("float32"); unknown ones stay as written. */
export function v2DataType(dtype) {
  const m = /^[<>|]([a-z]\d+)$/.exec(String(dtype));
  return (m && V2_DTYPES[m[1]]) || String(dtype);
}

/**
 * Who decodes a codec: 'numdecode' (pcodec), 'zarrita', 'zarrita + numcodecs' (blosc, lz4,
 * zstd: zarrita loads them from the numcodecs package), or null (nobody here).
 * @param {string} name the v3 codec name (v2 compressors and filters as "numcodecs.<id>")
 * @param {{has: (name: string) => boolean}} [registry] zarrita's codec registry
 */
export function decoderOf(name, registry) {
  if (PCODEC_CODEC_NAMES.includes(name)) return 'numdecode';
  if (VIA_NUMCODECS.has(name)) return 'zarrita + numcodecs';
  if (ZARRITA_BUILTIN.has(name) || registry?.has(name)) return 'zarrita';
  return null;
}

function codecList(codecs, registry, role = 'codec', depth = 0) {
  const out = [];
  for (const c of codecs ?? []) {
    const name = String(c?.name ?? '?');
    out.push({ name, configuration: c?.configuration ?? {}, role, depth, decoder: decoderOf(name, registry) });
    if (name === 'sharding_indexed') {
      out.push(...codecList(c.configuration?.codecs, registry, 'inner codec', depth + 1));
      out.push(...codecList(c.configuration?.index_codecs, registry, 'index codec', depth + 1));
    }
  }
  return out;
}

const undecodable = (codecs) => [...new Set(codecs.filter((c) => c.decoder === null).map((c) => c.name))];

function describeV3(path, meta, registry) {
  const sharding = (meta.codecs ?? []).find((c) => c?.name === 'sharding_indexed');
  const gridShape = meta.chunk_grid?.configuration?.chunk_shape ?? null;
  const cke = meta.chunk_key_encoding ?? { name: 'default' };
  const codecs = codecList(meta.codecs, registry);
  return {
    kind: 'array',
    path,
    zarrFormat: 3,
    shape: meta.shape ?? [],
    chunks: sharding ? (sharding.configuration?.chunk_shape ?? null) : gridShape,
    shards: sharding ? gridShape : null,
    indexLocation: sharding ? (sharding.configuration?.index_location ?? 'end') : null,
    dataType: String(meta.data_type),
    dtype: DTYPES[meta.data_type] ?? null,
    fillValue: meta.fill_value ?? null,
    order: null,
    chunkKeyEncoding: { name: cke.name, separator: cke.configuration?.separator ?? (cke.name === 'v2' ? '.' : '/') },
    codecs,
    undecodableCodecs: undecodable(codecs),
    dimensionNames: Array.isArray(meta.dimension_names) ? meta.dimension_names : null,
    attributes: meta.attributes ?? {},
  };
}

function describeV2(path, meta, attributes, registry) {
  const codecs = [];
  for (const f of meta.filters ?? []) {
    const { id, ...configuration } = f ?? {};
    codecs.push({ name: String(id), configuration, role: 'filter', depth: 0, decoder: decoderOf(`numcodecs.${id}`, registry) });
  }
  if (meta.compressor) {
    const { id, ...configuration } = meta.compressor;
    codecs.push({ name: String(id), configuration, role: 'compressor', depth: 0, decoder: decoderOf(`numcodecs.${id}`, registry) });
  }
  const dims = attributes?._ARRAY_DIMENSIONS;
  const dataType = v2DataType(meta.dtype);
  return {
    kind: 'array',
    path,
    zarrFormat: 2,
    shape: meta.shape ?? [],
    chunks: meta.chunks ?? null,
    shards: null,
    indexLocation: null,
    dataType,
    dtype: DTYPES[dataType] ?? null,
    v2Dtype: String(meta.dtype),
    fillValue: meta.fill_value ?? null,
    order: meta.order ?? 'C',
    chunkKeyEncoding: { name: 'v2', separator: meta.dimension_separator ?? '.' },
    codecs,
    undecodableCodecs: undecodable(codecs),
    dimensionNames: Array.isArray(dims) ? dims : null,
    attributes: attributes ?? {},
  };
}

/**
 * Describes an array from its metadata as written: list()'s array node.
 * @param {string} path the array's path in the store ("/t2m")
 * @param {object} meta zarr.json (v3) or .zarray (v2)
 * @param {object} [attributes] .zattrs (v2)
 * @param {{has: Function}} [registry] zarrita's codec registry
 */
export function describeArray(path, meta, attributes = {}, registry) {
  return meta?.zarr_format === 2 ? describeV2(path, meta, attributes, registry) : describeV3(path, meta, registry);
}

/** The codec names in an array's chain that nothing here decodes. */
export function undecodableCodecs(description) {
  return description.undecodableCodecs ?? undecodable(description.codecs);
}

/**
 * Throws a ZarrError (ERR_UNSUPPORTED) naming the array when a codec in its chain has no decoder
 * here (neither numdecode nor zarrita).
 * @param {ReturnType<typeof describeArray>} description
 * @param {string} [where] the store's URL or directory, for the message
 */
export function assertReadable(description, where) {
  const missing = undecodableCodecs(description);
  if (missing.length) {
    throw new ZarrError(
      `zarr: array ${description.path}${where ? ` in ${where}` : ''} uses the codec${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which neither numdecode nor zarrita decodes`,
      { code: CODES.UNSUPPORTED, array: description.path, dataset: description.path, file: where },
    );
  }
}

/**
 * Throws a ZarrError (ERR_UNSUPPORTED) naming the array when zarrita itself would misread it:
 * zarrita 0.7.5 ignores `index_location` and always reads a shard's index from its end, so a shard
 * with its index at the start would be decoded from garbage offsets. (numdecode's read reads both.)
 * @param {ReturnType<typeof describeArray>} description
 * @param {string} [where]
 */
export function assertZarritaReadable(description, where) {
  if (description.indexLocation !== null && description.indexLocation !== 'end') {
    throw new ZarrError(
      `zarr: array ${description.path}${where ? ` in ${where}` : ''} keeps its shard index at the ${description.indexLocation} of each shard (index_location: "${description.indexLocation}"); zarrita 0.7.5 reads shard indexes only from the end`,
      { code: CODES.UNSUPPORTED, array: description.path, dataset: description.path, file: where },
    );
  }
}
