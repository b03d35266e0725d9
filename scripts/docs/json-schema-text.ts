/** Describes JSON Schema fragments in words for the reference tables. */

export type Schema = Record<string, unknown>;

export function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function variants(schema: Schema): Schema[] {
  const list = (schema.oneOf ?? schema.anyOf) as unknown;
  return Array.isArray(list) ? list.filter(isSchema) : [];
}

/** A short type: `string`, `integer`, `"csv" | "xlsx"`, `(string | object)[]`, `object`. */
export function typeText(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const alternatives = variants(schema);
  if (alternatives.length > 0) return [...new Set(alternatives.map(typeText))].join(' or ');
  const type = schema.type;
  if (Array.isArray(type)) return type.join(' or ');
  if (type === 'array') {
    const items = isSchema(schema.items) ? typeText(schema.items) : 'any';
    return items.includes(' ') ? `(${items})[]` : `${items}[]`;
  }
  if (typeof type === 'string') return type;
  if (isSchema(schema.properties)) return 'object';
  return 'any';
}

/** Limits and defaults a reader needs: minimum, maximum, lengths, pattern, default. */
export function constraintText(schema: Schema): string[] {
  const parts: string[] = [];
  const add = (key: string, label: string) => {
    if (schema[key] !== undefined) parts.push(`${label} ${JSON.stringify(schema[key])}`);
  };
  add('minimum', '≥');
  add('exclusiveMinimum', '>');
  add('maximum', '≤');
  add('exclusiveMaximum', '<');
  add('minLength', 'min length');
  add('maxLength', 'max length');
  add('minItems', 'min items');
  add('maxItems', 'max items');
  add('pattern', 'pattern');
  add('default', 'default');
  return parts;
}
