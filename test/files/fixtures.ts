/** Rows that exercise every cell rule: quoting, formula-like text, negative numbers, nulls, nested values, Unicode. */
export function trickyRows(): Record<string, unknown>[] {
  const texts = [
    '=SUM(A1:A2)',
    '+1',
    '-1',
    '@cmd',
    '\tTAB',
    '\rCR',
    'plain',
    'comma, inside',
    'quote " inside',
    'line\nbreak',
    'CRLF\r\nbreak',
    'ünïcødé ✓ 日本',
    '',
    ' spaced ',
  ];
  return texts.map((text, index) => ({
    id: index + 1,
    text,
    amount: index % 4 === 0 ? null : (index % 3 === 0 ? -1 : 1) * (index * 2.5),
    flag: index % 2 === 0,
    nested: index % 5 === 0 ? { a: [1, 2], b: 'x,"y"' } : index % 7 === 0 ? [1, 'two'] : null,
    group: ['b', 'a', 'c'][index % 3],
  }));
}

/** Rows whose sort keys repeat (to see stability) and hold nulls and missing values (to see "nulls last"). */
export function sortRows(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) => {
    const row: Record<string, unknown> = { id: index, group: ['x', 'y', 'z', null][index % 4], score: index % 6 === 0 ? null : ((index * 7919) % 23) - 11 };
    if (index % 9 === 0) delete row.score;
    return row;
  });
}
