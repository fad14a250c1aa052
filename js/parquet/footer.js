// The footer of a Parquet file through hyparquet (metadata, schema tree), and the column model
// numdecode reads from it: top-level columns, their leaf index and levels.
import { parquetMetadataAsync, parquetSchema } from 'hyparquet';
import { ParquetError, NumdecodeError } from '../errors.js';

// The first request reads the file's tail: small, so reading one column of a small file over
// HTTP stays well below the file size; hyparquet asks for the rest of a longer footer.
const FOOTER_FIRST_READ = 16384;

/** A hyparquet AsyncBuffer over an opened file. */
export function asyncBufferOf(file, size) {
  return {
    byteLength: size,
    async slice(start, end = size) {
      const u8 = await file.read(start, end);
      return u8.byteOffset === 0 && u8.byteLength === u8.buffer.byteLength ? u8.buffer : u8.slice().buffer;
    },
  };
}

/** Reads and checks the footer; every failure is a ParquetError naming the file. */
export async function readFooter(file, name) {
  const size = await file.size();
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
  return { size, buffer, metadata, schema, columns, numRows: groupRows };
}

// Top-level fields; a FLOAT / DOUBLE leaf directly under the root is read by numdecode's float path.
function topLevelColumns(schema, metadata, name) {
  const columns = [];
  let leaf = 0;
  const countLeaves = (node) => (node.children.length ? node.children.reduce((n, c) => n + countLeaves(c), 0) : 1);
  const leaves = metadata.row_groups?.[0]?.columns?.length;
  for (const child of schema.children) {
    const e = child.element;
    const flatFloat = child.children.length === 0 && (e.type === 'FLOAT' || e.type === 'DOUBLE') && e.repetition_type !== 'REPEATED';
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
