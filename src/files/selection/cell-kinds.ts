/** Bit flags of the kinds of value seen in a column, to report mixed columns. */
export const cellKind = { number: 1, text: 2, boolean: 4, nested: 8 } as const;

export function kindOf(value: unknown): number {
  switch (typeof value) {
    case 'number':
      return cellKind.number;
    case 'string':
      return cellKind.text;
    case 'boolean':
      return cellKind.boolean;
    case 'object':
      return value === null ? 0 : cellKind.nested;
    default:
      return 0;
  }
}

/** Names of the kinds in a flag set, e.g. ["numbers", "text"]. */
export function kindNames(flags: number): string[] {
  const names: string[] = [];
  if (flags & cellKind.number) names.push('numbers');
  if (flags & cellKind.text) names.push('text');
  if (flags & cellKind.boolean) names.push('booleans');
  if (flags & cellKind.nested) names.push('nested values');
  return names;
}

/** True when more than one kind is set. */
export function isMixed(flags: number): boolean {
  return (flags & (flags - 1)) !== 0;
}

/** The columns whose cells were of more than one kind (`kinds`: each column's flags, in column order). */
export function mixedColumnsOf(columns: readonly { name: string }[], kinds: ArrayLike<number>): { column: string; kinds: string[] }[] {
  return columns.flatMap((column, index) => (isMixed(kinds[index] as number) ? [{ column: column.name, kinds: kindNames(kinds[index] as number) }] : []));
}
