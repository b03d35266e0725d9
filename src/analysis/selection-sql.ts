/** The columns/sort/range selection of the file tools, as one DuckDB SELECT over a sandbox file. */
export type ColumnChoice = string | { name: string; header?: string };
export interface SortKey {
  column: string;
  direction?: 'asc' | 'desc';
}
export interface TableSelection {
  source: string;
  columns?: ColumnChoice[];
  sort?: SortKey | SortKey[];
  range?: { start: number; count?: number };
}

function identifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** The SELECT that reads a chart's rows: columns (renamed by header), sort (empty values last), range. */
export function selectionSql(selection: TableSelection): string {
  const columns =
    selection.columns === undefined || selection.columns.length === 0
      ? '*'
      : selection.columns
          .map((column) =>
            typeof column === 'string'
              ? identifier(column)
              : `${identifier(column.name)}${column.header === undefined ? '' : ` AS ${identifier(column.header)}`}`,
          )
          .join(', ');
  const sort = selection.sort === undefined ? [] : Array.isArray(selection.sort) ? selection.sort : [selection.sort];
  const order =
    sort.length === 0 ? '' : ` ORDER BY ${sort.map((key) => `${identifier(key.column)} ${key.direction === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`).join(', ')}`;
  const limit = selection.range?.count === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(selection.range.count))}`;
  const offset = selection.range === undefined || selection.range.start <= 0 ? '' : ` OFFSET ${Math.floor(selection.range.start)}`;
  return `SELECT ${columns} FROM ${literal(selection.source)}${order}${limit}${offset}`;
}
