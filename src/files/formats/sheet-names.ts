import { SpillwayError } from '../../errors.js';

/** Excel's rules for a sheet name: 1–31 characters, none of \ / ? * [ ] :, not starting or ending with an apostrophe, not "History". */
const forbidden = /[\\/?*[\]:]/;
export const maxSheetNameChars = 31;

/** Refuses a sheet name a model gave that Excel would not open, naming the rule. */
export function checkSheetName(name: string, field = 'sheet'): string {
  const problem =
    name.trim().length === 0
      ? 'is empty'
      : name.length > maxSheetNameChars
        ? `is ${name.length} characters long (Excel allows ${maxSheetNameChars})`
        : forbidden.test(name)
          ? 'contains one of \\ / ? * [ ] :'
          : name.startsWith("'") || name.endsWith("'")
            ? 'starts or ends with an apostrophe'
            : name.toLowerCase() === 'history'
              ? 'is "History", which Excel reserves'
              : undefined;
  if (problem !== undefined) {
    throw new SpillwayError('INVALID_ARGUMENTS', `${field} ${JSON.stringify(name)} ${problem}; give a sheet name such as "Orders 2026".`, {
      field,
      value: name,
    });
  }
  return name;
}

/**
 * Hands out the sheet names of one workbook: a derived name made safe (cut to
 * 31 characters, forbidden characters replaced), and unique ignoring case as
 * Excel requires ("Orders", "Orders 2", …).
 */
export class SheetNames {
  private readonly taken = new Set<string>();

  /** The name for the `part`-th sheet of a table whose base name is `base` (a table too long for one sheet continues on "base 2", …). */
  take(base: string, part: number): string {
    const clean =
      base
        .replace(/[\\/?*[\]:]/g, '_')
        .replace(/^'+|'+$/g, '')
        .trim() || 'Data';
    for (let suffix = part + 1; ; suffix += 1) {
      const ending = suffix === 1 ? '' : ` ${suffix}`;
      const name = `${clean.slice(0, maxSheetNameChars - ending.length)}${ending}`;
      if (!this.taken.has(name.toLowerCase())) {
        this.taken.add(name.toLowerCase());
        return name;
      }
    }
  }
}
