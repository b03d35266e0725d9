import { DuckDBTypeId, type DuckDBDataChunk } from '@duckdb/node-api';

/** A column whose cells can be measured before they are converted: text/binary by byte length, lists by element count. */
export interface MeasuredColumn {
  index: number;
  kind: 'string' | 'list';
}

/** The columns of a result whose cell sizes DuckDB's vectors tell without converting them. */
export function measuredColumns(typeIds: readonly number[]): MeasuredColumn[] {
  return typeIds.flatMap((typeId, index): MeasuredColumn[] => {
    if (typeId === DuckDBTypeId.VARCHAR || typeId === DuckDBTypeId.BLOB) return [{ index, kind: 'string' }];
    if (typeId === DuckDBTypeId.LIST) return [{ index, kind: 'list' }];
    return [];
  });
}

interface VectorInternals {
  dataView?: unknown;
  entryData?: unknown;
  validity?: { itemValid?: (index: number) => boolean };
}

/**
 * A lower bound of what a row costs as JSON (as rowBytes measures it), read from DuckDB's own vectors
 * without making JS values: a VARCHAR or BLOB cell's byte length from its
 * string header (4-byte length first, 16 bytes per cell), a list's element
 * count (each element at least a character and a comma). So a 300 MB cell or
 * a list of 30 million numbers is refused before it is copied. 0 for a
 * vector without the shape this relies on: then only the converted row is
 * measured.
 */
export function knownRowBytes(chunk: DuckDBDataChunk, row: number, columns: readonly MeasuredColumn[]): number {
  let bytes = 0;
  for (const column of columns) {
    const vector = chunk.getColumnVector(column.index) as unknown as VectorInternals;
    if (typeof vector.validity?.itemValid !== 'function' || !vector.validity.itemValid(row)) continue;
    if (column.kind === 'string' && vector.dataView instanceof DataView && row * 16 + 4 <= vector.dataView.byteLength) {
      const length = vector.dataView.getUint32(row * 16, true);
      // rowBytes counts a short text by its characters (a UTF-8 byte or three each), a long one by its bytes.
      bytes += length > 3 * 4096 ? length : Math.ceil(length / 3);
    } else if (column.kind === 'list' && vector.entryData instanceof BigUint64Array && row * 2 + 1 < vector.entryData.length) {
      bytes += 2 * Number(vector.entryData[row * 2 + 1]);
    }
  }
  return bytes;
}
