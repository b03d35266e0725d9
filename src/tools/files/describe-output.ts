import { formatBytes } from '../../util/format.js';
import type { OutputColumn } from '../../files/selection/selection.js';

/** Columns as the result reports them: a name, or {name, header} when the header differs. */
export function reportColumns(columns: OutputColumn[]): (string | OutputColumn)[] {
  return columns.map((column) => (column.header === column.name ? column.name : column));
}

/** "outputs/x.csv already existed, so this file is outputs/x (2).csv." */
export function renameNote(requestedName: string | undefined, finalPath: string): string[] {
  if (requestedName === undefined) return [];
  return [`outputs/${requestedName} already existed and was kept; this file is named ${finalPath} instead.`];
}

export function sizeText(bytes: number): string {
  return formatBytes(bytes);
}
