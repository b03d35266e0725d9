import type { ErrorObject } from 'ajv';

/** "$.sort[0].column" from an ajv instancePath ("/sort/0/column"). */
export function toJsonPath(instancePath: string): string {
  if (instancePath === '') return '$';
  return `$${instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : /^[A-Za-z_$][\w$]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`))
    .join('')}`;
}

/** One readable line per ajv error, naming where it is and what is allowed. */
export function describeAjvError(error: ErrorObject, where = toJsonPath(error.instancePath)): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const allowed = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return `${where}: unknown property "${String(params.additionalProperty)}"${allowed.length ? `; allowed: ${allowed.join(', ')}` : ''}`;
    }
    case 'enum':
      return `${where}: must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'required':
      return `${where}: missing required property "${String(params.missingProperty)}"`;
    case 'type':
      return `${where}: must be ${String(params.type)}`;
    case 'const':
      return `${where}: must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${where}: ${error.message ?? 'is invalid'}`;
  }
}
