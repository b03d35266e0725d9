/**
 * The order export_table and draw_table sort by: numbers compare as numbers,
 * text by UTF-16 code units (deterministic, like a binary collation), false
 * before true; across types numbers < text < booleans < nested values; empty
 * values (null, missing) always last, in either direction.
 */
export function compareCells(a: unknown, b: unknown, descending: boolean): number {
  const rankA = rankOf(a);
  const rankB = rankOf(b);
  if (rankA === emptyRank || rankB === emptyRank) return rankA === rankB ? 0 : rankA === emptyRank ? 1 : -1;
  let order: number;
  if (rankA !== rankB) order = rankA - rankB;
  else if (rankA === numberRank) order = (a as number) - (b as number);
  else if (rankA === textRank) order = (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  else if (rankA === booleanRank) order = Number(a) - Number(b);
  else {
    const textA = JSON.stringify(a);
    const textB = JSON.stringify(b);
    order = textA < textB ? -1 : textA > textB ? 1 : 0;
  }
  return descending && order !== 0 ? -order : order;
}

const numberRank = 0;
const textRank = 1;
const booleanRank = 2;
const nestedRank = 3;
const emptyRank = 4;

function rankOf(value: unknown): number {
  switch (typeof value) {
    case 'number':
      return numberRank;
    case 'string':
      return textRank;
    case 'boolean':
      return booleanRank;
    case 'object':
      return value === null ? emptyRank : nestedRank;
    default:
      return emptyRank;
  }
}
