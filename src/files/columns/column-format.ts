import { Type } from '../../util/type-builder.js';
import { SpillwayError } from '../../errors.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { enumOf, oneOf } from '../../util/schema-builders.js';

/**
 * How a column's values are shown. The same format drives every file: XLSX
 * gets a number format on an exact value, DOCX/PPTX/Markdown get text made
 * with Intl for the locale, CSV gets a spreadsheet-parseable form.
 */
export type ColumnFormat =
  | { type: 'number'; decimals: number; thousands: boolean }
  | { type: 'percent'; decimals: number }
  | { type: 'currency'; currency: string; decimals: number }
  | { type: 'date' }
  /** `epoch`: the values are Unix epoch numbers in that unit (inferred from the name and range, never named by a call). */
  | { type: 'datetime'; epoch?: EpochUnit }
  | { type: 'text' };

export type FormatName = ColumnFormat['type'];

export type EpochUnit = 'seconds' | 'milliseconds';

export const formatNames = ['number', 'integer', 'percent', 'currency', 'date', 'datetime', 'text'] as const;

const maxDecimals = 10;

/** The `format` member of a column argument: a name, or an object with options. */
export const columnFormatSchema = oneOf(
  [
    enumOf(formatNames),
    Type.Object(
      {
        type: enumOf(formatNames),
        decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: maxDecimals, description: 'Digits after the decimal point.' })),
        thousands: Type.Optional(Type.Boolean({ description: 'number: group thousands (default true).' })),
        currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'currency: ISO 4217 code, e.g. "EUR".' })),
      },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      'How the column is shown: "number", "integer", "percent" (0.25 → 25%), "currency" (needs {"type":"currency","currency":"EUR"}), "date", "datetime", "text", or an object {"type", "decimals"?, "thousands"?, "currency"?}. Default: inferred from the values (ISO timestamps → dates, fractions → 2 decimals, identifiers → text).',
  },
);

function formatError(where: string, message: string, details: Record<string, unknown>): SpillwayError {
  return new SpillwayError('FORMAT_INVALID', `${where}format ${message}`, { field: `${where}format`, ...details });
}

/**
 * Checks a format a model or the CLI wrote (schemas already ran for tools;
 * CLI arguments and document specs reach this without one) and fills defaults.
 */
export function normalizeColumnFormat(input: unknown, where = ''): ColumnFormat {
  const raw: Record<string, unknown> = typeof input === 'string' ? { type: input } : isJsonObject(input) ? input : {};
  const name = raw.type;
  if (typeof name !== 'string' || !(formatNames as readonly string[]).includes(name)) {
    throw formatError(where, `must be one of ${formatNames.map((known) => `"${known}"`).join(', ')} (got ${JSON.stringify(input)}).`, {
      got: input,
      allowed: formatNames,
    });
  }
  for (const key of Object.keys(raw)) {
    if (!['type', 'decimals', 'thousands', 'currency'].includes(key)) throw formatError(where, `has an unknown member "${key}".`, { member: key });
  }
  const decimals = (fallback: number): number => {
    const value = raw.decimals ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > maxDecimals) {
      throw formatError(where, `decimals must be a whole number from 0 to ${maxDecimals} (got ${JSON.stringify(raw.decimals)}).`, { decimals: raw.decimals });
    }
    return value;
  };
  switch (name) {
    case 'number':
    case 'integer': {
      const thousands = raw.thousands ?? true;
      if (typeof thousands !== 'boolean') throw formatError(where, 'thousands must be true or false.', { thousands });
      return { type: 'number', decimals: decimals(name === 'integer' ? 0 : 2), thousands };
    }
    case 'percent':
      return { type: 'percent', decimals: decimals(0) };
    case 'currency': {
      const currency = raw.currency;
      if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency)) {
        throw formatError(
          where,
          `currency needs a three-letter ISO 4217 code, e.g. {"type": "currency", "currency": "EUR"} (got ${JSON.stringify(currency)}).`,
          {
            currency,
          },
        );
      }
      return { type: 'currency', currency: currency.toUpperCase(), decimals: decimals(2) };
    }
    case 'date':
    case 'datetime':
    case 'text':
      return { type: name };
    default:
      throw formatError(where, `is unknown (got ${JSON.stringify(name)}).`, { got: name });
  }
}
