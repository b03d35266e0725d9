/**
 * Header cells as column names: blanks become `column_N`, repeats get `_2`,
 * `_3`, … Linear in the number of cells: each name's next suffix is
 * remembered, so a header of 10,000 identical cells costs 10,000 steps, not
 * 50 million (a 78 KiB header once held a pool worker for 120 s).
 */
export function uniqueHeaderNames(fields: readonly string[]): string[] {
  const seen = new Set<string>();
  const nextSuffix = new Map<string, number>();
  return fields.map((field, index) => {
    let name = field.trim() === '' ? `column_${index + 1}` : field;
    if (seen.has(name)) {
      let n = nextSuffix.get(field) ?? 2;
      while (seen.has(`${field}_${n}`)) n += 1;
      name = `${field}_${n}`;
      nextSuffix.set(field, n + 1);
    }
    seen.add(name);
    return name;
  });
}
