import { SpillwayError } from '../../errors.js';
import { checkLocale } from '../../files/columns/format-values.js';
import { checkSheetName } from '../../files/formats/sheet-names.js';
import { checkTimeZone } from '../../files/columns/iso-date.js';

/** Sources one workbook takes (one sheet each). */
export const maxSources = 20;

/** The export_table options the schema cannot judge alone: which go with which format, sheet names, the locale. */
export function checkTableOptions(options: {
  format: 'csv' | 'xlsx';
  sources: string[];
  sheets: string[];
  args: {
    locale?: string | undefined;
    timeZone?: string | undefined;
    bom?: boolean | undefined;
    delimiter?: string | undefined;
    formulaGuard?: boolean | undefined;
  };
}): void {
  const { format, sources, sheets, args } = options;
  const refuse = (field: string, message: string) => {
    throw new SpillwayError('INVALID_ARGUMENTS', message, { field });
  };
  if (format === 'csv') {
    if (sources.length > 1)
      refuse('source', `A CSV file holds one table; export the ${sources.length} sources one call each, or as XLSX (one sheet per source).`);
    if (sheets.length > 0) refuse('sheet', 'sheet names an XLSX sheet; a CSV file has none. Leave sheet out, or export as XLSX.');
  } else {
    for (const name of ['bom', 'delimiter', 'formulaGuard'] as const) {
      if (args[name] !== undefined)
        refuse(name, `${name} is a CSV option; an XLSX file has typed cells, no delimiter and never runs text as a formula. Leave ${name} out.`);
    }
    if (sheets.length > 1 && sheets.length !== sources.length) {
      refuse('sheet', `sheet lists ${sheets.length} names for ${sources.length} sources; give one name per source, in the same order, or leave sheet out.`);
    }
    if (sources.length > 1 && sheets.length === 1) refuse('sheet', `sheet must list one name per source (${sources.length}), e.g. ["Orders", "Refunds"].`);
    sheets.forEach((name, index) => checkSheetName(name, sheets.length > 1 ? `sheet[${index}]` : 'sheet'));
    const seen = new Set<string>();
    for (const name of sheets) {
      if (seen.has(name.toLowerCase())) refuse('sheet', `The sheet name ${JSON.stringify(name)} is given twice; Excel needs distinct names (ignoring case).`);
      seen.add(name.toLowerCase());
    }
  }
  if (args.locale !== undefined) checkLocale(args.locale);
  if (args.timeZone !== undefined) checkTimeZone(args.timeZone);
}
