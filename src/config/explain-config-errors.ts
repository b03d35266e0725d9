import type { ErrorObject } from 'ajv';
import { closeNames } from '../util/close-names.js';
import { describeAjvError } from '../util/schema-errors.js';

/**
 * ajv's errors for a configuration as the lines a person reads, one per
 * problem. A `oneOf` (server.auth, sql.source, an upstream) reports every
 * alternative's complaints; only the alternative the value meant is kept:
 * the one whose `mode`/`type` it names, else the one with the fewest problems.
 * A misspelled key is "unknown key "a.b": did you mean "a.c"?", and the
 * "a.c: is required" it caused is not repeated.
 */
export function explainConfigErrors(errors: readonly ErrorObject[]): string[] {
  const problems = choseAlternatives(errors).map(describe);
  const meant = new Set(problems.flatMap((problem) => /: did you mean "([^"]+)"\?$/.exec(problem)?.[1] ?? []));
  return [...new Set(problems.filter((problem) => !meant.has(/^(.+): is required$/.exec(problem)?.[1] ?? '')))];
}

/** The errors with each failed oneOf replaced by those of the alternative meant (outermost first, then within it). */
function choseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  const oneOf = errors.filter((error) => error.keyword === 'oneOf').sort((a, b) => a.schemaPath.length - b.schemaPath.length)[0];
  if (oneOf === undefined) return [...errors];
  const prefix = `${oneOf.schemaPath}/`;
  const branches = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    if (!error.schemaPath.startsWith(prefix)) continue;
    const branch = error.schemaPath.slice(prefix.length).split('/')[0] as string;
    branches.set(branch, [...(branches.get(branch) ?? []), error]);
  }
  const rest = errors.filter((error) => error !== oneOf && !error.schemaPath.startsWith(prefix));
  // No alternative's complaints (more than one matched): the oneOf error itself says so.
  if (branches.size === 0) return [...choseAlternatives(rest), oneOf];
  const named = [...branches.values()].filter((branch) => !branch.some((error) => isDiscriminant(error, oneOf)));
  if (named.length === 0) return [...choseAlternatives(rest), discriminantProblem([...branches.values()].flat(), oneOf)];
  const chosen = named.sort((a, b) => explainConfigErrors(a).length - explainConfigErrors(b).length)[0] as ErrorObject[];
  return choseAlternatives([...rest, ...chosen]);
}

/** A `const` on a direct member (`mode`, `type`): the alternative is for another kind of value. */
function isDiscriminant(error: ErrorObject, oneOf: ErrorObject): boolean {
  return (
    error.keyword === 'const' &&
    error.instancePath.startsWith(`${oneOf.instancePath}/`) &&
    !error.instancePath.slice(oneOf.instancePath.length + 1).includes('/')
  );
}

/** Every alternative named another kind: one error listing the kinds there are. */
function discriminantProblem(errors: ErrorObject[], oneOf: ErrorObject): ErrorObject {
  const discriminants = errors.filter((error) => isDiscriminant(error, oneOf));
  const first = discriminants[0] as ErrorObject;
  const allowedValues = [...new Set(discriminants.map((error) => (error.params as { allowedValue: unknown }).allowedValue))];
  return { ...first, keyword: 'enum', params: { allowedValues } };
}

function describe(error: ErrorObject): string {
  const key = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const where = key === '' ? String(params.additionalProperty) : `${key}.${String(params.additionalProperty)}`;
    const allowed = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    const meant = suggestKey(String(params.additionalProperty), allowed);
    if (meant !== undefined) return `unknown key "${where}": did you mean "${key === '' ? meant : `${key}.${meant}`}"?`;
    return `unknown key "${where}"${allowed.length ? `; allowed here: ${allowed.join(', ')}` : ''}`;
  }
  if (error.keyword === 'required') return `${key === '' ? '' : `${key}.`}${String(params.missingProperty)}: is required`;
  if (error.keyword === 'propertyNames') return `${key}: key "${String(params.propertyName)}" is not allowed (letters, digits, _ and -; at most 32)`;
  return describeAjvError(error, key === '' ? '(top level)' : key);
}

/** The one allowed key a misspelled one most likely meant (none for keys too short to judge). */
function suggestKey(key: string, allowed: string[]): string | undefined {
  if (key.length < 3) return undefined;
  return closeNames(
    key,
    allowed.filter((name) => !name.startsWith('$')),
    1,
  )[0];
}
