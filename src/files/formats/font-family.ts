import { SpillwayError } from '../../errors.js';
import { fontFamilyPattern } from '../../util/font-family-name.js';

const pattern = new RegExp(fontFamilyPattern);

/** `family` when it is a font family name the files can carry, else an INVALID_ARGUMENTS error that names `field`. */
export function checkFontFamily(family: string, field = 'fontFamily'): string {
  if (!pattern.test(family))
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `${field} "${family.slice(0, 80)}" is not a font family name: use 1-64 letters, digits, spaces, dots, hyphens or underscores, e.g. "Arial" or "Noto Sans".`,
      { field },
    );
  return family;
}

/**
 * Families whose letters are clearly wider than Arial's. Column widths, row
 * heights and cuts are measured with Arial-like widths (src/files/layout/text-width.ts),
 * which err wide for Arial and its metric twins (Helvetica, Liberation Sans,
 * Arimo) and for narrower faces (Calibri, Carlito, Times New Roman); these
 * families are wider still (DejaVu Sans by about 14%), so a word measured to fit may wrap.
 */
const widerFamilies = [
  'verdana',
  'tahoma',
  'dejavu sans',
  'bitstream vera sans',
  'dejavu sans mono',
  'courier new',
  'courier',
  'consolas',
  'lucida console',
  'liberation mono',
];

/** The note a result carries when its font family is one known to be wider than the widths it was measured with. */
export function widerFontNote(family: string, where: string): string | undefined {
  if (!widerFamilies.includes(family.trim().toLowerCase())) return undefined;
  return `${where}: "${family}" is wider than the Arial-like letter widths spillway measures columns and rows with, so a long word or number may wrap; a family such as Arial, Liberation Sans or Calibri keeps every measured word on one line.`;
}
