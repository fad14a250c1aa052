// The footer of a Parquet file through hyparquet (metadata, schema tree), and the column model
// numdecode reads from it: top-level columns, their leaf index and levels.
import { parquetMetadataAsync, parquetSchema } from 'hyparquet';
import { ParquetError, NumdecodeError } from '../errors.js';
import { readTail } from '../io/tail.js';
import { chunkStart } from './chunk-pages.js';

// The first request reads the file's tail: its size and, in most files, the whole footer (one
// round trip over HTTP, a suffix range). Small, so that reading one column of a small file over
// HTTP stays well below the file size; a longer footer costs one more request for the rest.
const FOOTER_FIRST_READ = 16384;

/** A hyparquet AsyncBuffer over an opened file. */
export function asyncBufferOf(file, size) {
  return {
    byteLength: size,
    async slice(start, end = size) {
      const u8 = await file.read(start, end);
      if (u8.byteOffset === 0 && u8.byteLength === u8.buffer.byteLength) return u8.buffer;
      // A copy of just these bytes (a Node Buffer's slice() would be a view of its whole buffer).
      const copy = new Uint8Array(u8.length);
      copy.set(u8);
      return copy.buffer;
    },
  };
}

/** Reads and checks the footer; every failure is a ParquetError naming the file. */
export async function readFooter(file, name) {
  const { size } = await readTail(file, FOOTER_FIRST_READ); // cached: hyparquet's reads below cost nothing
  if (size < 12) throw new ParquetError(`parquet: ${name}: ${size} bytes is too short for a Parquet file`, { file: name });
  const buffer = asyncBufferOf(file, size);
  let metadata;
  let schema;
  try {
    metadata = await parquetMetadataAsync(buffer, { initialFetchSize: Math.min(FOOTER_FIRST_READ, size) });
    schema = parquetSchema(metadata);
  } catch (err) {
    if (err instanceof NumdecodeError) throw err; // an IoError from the source
    throw new ParquetError(`parquet: ${name}: the footer is unreadable (${err?.message ?? err})`, { file: name, cause: err });
  }
  let groupRows = 0;
  for (const [i, rg] of (metadata.row_groups ?? []).entries()) {
    const n = Number(rg.num_rows);
    if (!Number.isSafeInteger(n) || n < 0) throw new ParquetError(`parquet: ${name}: row group ${i} has ${rg.num_rows} rows`, { file: name, rowGroup: i });
    groupRows += n;
  }
  if (groupRows !== Number(metadata.num_rows)) {
    throw new ParquetError(`parquet: ${name}: the row groups hold ${groupRows} rows, the footer says ${metadata.num_rows}`, { file: name });
  }
  const columns = topLevelColumns(schema, metadata, name);
  return { size, buffer, metadata, schema, columns, nestedFloats: nestedFloatLeaves(schema, columns), numRows: groupRows };
}

const isFloat = (e) => e.type === 'FLOAT' || e.type === 'DOUBLE';

// Top-level fields; a FLOAT / DOUBLE leaf directly under the root is read by numdecode's float path.
function topLevelColumns(schema, metadata, name) {
  const columns = [];
  let leaf = 0;
  const leaves = metadata.row_groups?.[0]?.columns?.length;
  for (const child of schema.children) {
    const e = child.element;
    const flatFloat = child.children.length === 0 && isFloat(e) && e.repetition_type !== 'REPEATED';
    columns.push({
      name: e.name,
      leafIndex: leaf,
      type: e.type ?? 'GROUP',
      repetition: e.repetition_type,
      flatFloat,
      maxDef: e.repetition_type === 'REQUIRED' ? 0 : 1,
      node: child,
    });
    leaf += countLeaves(child);
  }
  if (leaves !== undefined && leaves !== leaf) {
    throw new ParquetError(`parquet: ${name}: the schema has ${leaf} leaf columns, row group 0 has ${leaves} column chunks`, { file: name });
  }
  return columns;
}

// FLOAT / DOUBLE leaves below the top level, named by their dotted path: inside structs only
// ("point.x": one value per row, null where the leaf or a struct above it is null; flatFloat, read
// like top-level columns), or inside one list ("tags.list.element": listFloat, see list-column.js;
// repDef is the definition level at which an element exists, below listNullDef the row's list is
// null). Leaves inside a list inside a list are left to hyparquet.
function nestedFloatLeaves(schema, columns) {
  const out = [];
  const walk = (node, path, leafIndex, maxDef, list) => {
    let index = leafIndex;
    for (const child of node.children) {
      const e = child.element;
      const repeated = e.repetition_type === 'REPEATED';
      if (repeated && list) {
        index += countLeaves(child);
        continue;
      }
      const def = maxDef + (e.repetition_type === 'REQUIRED' ? 0 : 1);
      const inList = repeated ? { repDef: def, listNullDef: maxDef } : list;
      const name = `${path}.${e.name}`;
      if (child.children.length) index = walk(child, name, index, def, inList);
      else {
        if (isFloat(e) && def <= 255) {
          const leaf = { name, leafIndex: index, type: e.type, repetition: e.repetition_type, maxDef: def, node: child };
          out.push(inList ? { ...leaf, listFloat: true, maxRep: 1, ...inList } : { ...leaf, flatFloat: true });
        }
        index++;
      }
    }
    return index;
  };
  for (const column of columns) {
    if (column.node.children.length && column.repetition !== 'REPEATED') walk(column.node, column.name, column.leafIndex, column.maxDef, null);
  }
  return out;
}

function countLeaves(node) {
  return node.children.length ? node.children.reduce((n, c) => n + countLeaves(c), 0) : 1;
}

/** Every leaf column of the schema tree, with its dotted path and its definition / repetition levels. */
export function leafColumns(schema) {
  const out = [];
  const walk = (node, def, rep) => {
    for (const child of node.children) {
      const e = child.element;
      const d = def + (e.repetition_type === 'REQUIRED' ? 0 : 1);
      const r = rep + (e.repetition_type === 'REPEATED' ? 1 : 0);
      if (child.children.length) walk(child, d, r);
      else out.push({ path: child.path.join('.'), element: e, maxDef: d, maxRep: r });
    }
  };
  walk(schema, 0, 0);
  return out;
}

/** The schema as inspect() and open() report it: one entry per leaf column. */
function schemaOf(leaves) {
  return leaves.map((l) => ({
    name: l.path,
    type: l.element.type,
    repetition: l.element.repetition_type,
    logicalType: l.element.logical_type?.type,
    convertedType: l.element.converted_type,
  }));
}

// hyparquet names the encodings it reads; ALP (id 10) it leaves unnamed. On a FLOAT / DOUBLE
// chunk, ALP is the only such id the format defines (inspect() confirms it from the pages).
const encodingNameOf = (e, type) => e ?? (type === 'FLOAT' || type === 'DOUBLE' ? 'ALP' : 'UNKNOWN');

/**
 * What the footer alone tells (no column chunk read): the schema, and per row group each column
 * chunk's codec, encodings, sizes and offset. open() hands this out; inspect() adds the pages.
 */
export function describeFooter(footer, name) {
  const { metadata, schema, size } = footer;
  const leaves = leafColumns(schema);
  const rowGroups = metadata.row_groups.map((rg, g) => ({
    index: g,
    numRows: Number(rg.num_rows),
    totalByteSize: Number(rg.total_byte_size),
    columns: rg.columns.map((chunk, c) => {
      const meta = chunk.meta_data ?? {};
      return {
        column: leaves[c]?.path,
        type: meta.type,
        codec: meta.codec,
        encodings: (meta.encodings ?? []).map((e) => encodingNameOf(e, meta.type)),
        numValues: Number(meta.num_values),
        compressedBytes: Number(meta.total_compressed_size),
        uncompressedBytes: Number(meta.total_uncompressed_size),
        offset: chunkStart(meta),
        offsetIndex: chunk.offset_index_offset !== undefined,
        columnIndex: chunk.column_index_offset !== undefined,
      };
    }),
  }));
  return {
    file: name,
    size,
    numRows: footer.numRows,
    createdBy: metadata.created_by,
    version: metadata.version,
    schema: schemaOf(leaves),
    rowGroups,
  };
}
