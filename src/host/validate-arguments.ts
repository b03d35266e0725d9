import { Ajv, type ValidateFunction } from 'ajv';
import { SpillwayError } from '../errors.js';
import { describeAjvError } from '../util/schema-errors.js';
import type { JsonSchema } from './tool.js';

/**
 * Compiles tool input schemas and reports every violation by JSON path. A
 * schema is compiled on the tool's first call, not at registration: compiling
 * every tool's schema was over a quarter of a `spillway call`'s start-up, for
 * tools that one call never uses.
 */
/** spillway's own tools' schemas, which a test holds to JSON Schema's meta-schema (see {@link markOwnSchema}). */
const ownSchemas = new WeakSet<object>();

/**
 * Marks a schema as spillway's own (a builtin tool's): it is compiled without first being
 * checked against JSON Schema's meta-schema. Building ajv's meta-schema validator is
 * ~40 ms of a `spillway call` here, for schemas test/host/lazy-schemas.test.ts has checked
 * already; another server's or an embedder's schema is still checked.
 */
export function markOwnSchema(schema: JsonSchema): void {
  ownSchemas.add(schema);
}

// verbose: errors carry parentSchema, so an unknown property can list the allowed ones.
const ajvOptions = { allErrors: true, strict: false, validateFormats: false, verbose: true } as const;

export class ArgumentValidator {
  private readonly ownAjv = new Ajv({ ...ajvOptions, validateSchema: false });
  private checkedAjv: Ajv | undefined;
  private readonly schemas = new Map<string, JsonSchema>();
  /** A compiled validator, or null for a schema ajv could not compile (the tool is then not validated locally). */
  private readonly compiled = new Map<string, ValidateFunction | null>();

  /** @param onUncompilable told once per schema that ajv cannot compile (an upstream server's dialect, say): not fatal. */
  constructor(private readonly onUncompilable: (tool: string, problem: string) => void = () => undefined) {}

  register(tool: string, schema: JsonSchema): void {
    this.schemas.set(tool, schema);
    this.compiled.delete(tool);
  }

  forget(tool: string): void {
    this.schemas.delete(tool);
    this.compiled.delete(tool);
  }

  /**
   * Compiles a tool's schema now instead of on its first call (a served host does this
   * for a tool whose first call should not wait: the first compile also builds ajv's own
   * meta-schema for a schema not spillway's own, ~0.1–0.2 s here). A no-op for a tool already compiled or unknown.
   */
  prepare(tool: string): void {
    this.validatorOf(tool);
  }

  private validatorOf(tool: string): ValidateFunction | undefined {
    const known = this.compiled.get(tool);
    if (known !== undefined) return known ?? undefined;
    const schema = this.schemas.get(tool);
    if (schema === undefined) return undefined;
    const { $schema: _dialect, ...rest } = schema;
    try {
      const ajv = ownSchemas.has(schema) ? this.ownAjv : (this.checkedAjv ??= new Ajv(ajvOptions));
      const validate = ajv.compile(rest);
      this.compiled.set(tool, validate);
      return validate;
    } catch (error) {
      this.compiled.set(tool, null);
      this.onUncompilable(tool, error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  /** Throws INVALID_ARGUMENTS listing every problem; `source` names where the arguments came from. */
  validate(tool: string, args: unknown, source?: string): void {
    const validate = this.validatorOf(tool);
    if (validate === undefined || validate(args)) return;
    const problems = [...new Set((validate.errors ?? []).map((error) => describeAjvError(error)))];
    const from = source === undefined ? '' : ` (arguments read from ${source})`;
    throw new SpillwayError('INVALID_ARGUMENTS', `Arguments for ${tool} are invalid${from}:\n- ${problems.join('\n- ')}`, {
      tool,
      errors: problems,
      ...(source === undefined ? {} : { argsPath: source }),
    });
  }
}
