import type { Ajv, ErrorObject } from 'ajv';
import { SpillwayError } from '../errors.js';
import { lazyAjv } from '../util/lazy-ajv.js';
import { describeAjvError } from '../util/schema-errors.js';
import { prebuiltToolCheck } from './prebuilt-tool-checks.js';
import type { JsonSchema } from './tool.js';

/** spillway's own tools' schemas, which a test holds to JSON Schema's meta-schema (see {@link markOwnSchema}). */
const ownSchemas = new WeakSet<object>();

/**
 * Marks a schema as spillway's own (a builtin tool's): its check may come ready-made from the
 * build (prebuilt-tool-checks.ts), and it is compiled without first being checked against JSON
 * Schema's meta-schema. Building ajv's meta-schema validator is ~40 ms of a `spillway call`
 * here, for schemas test/host/lazy-schemas.test.ts has checked already; another server's or
 * an embedder's schema is still checked.
 */
export function markOwnSchema(schema: JsonSchema): void {
  ownSchemas.add(schema);
}

// verbose: errors carry parentSchema, so an unknown property can list the allowed ones.
const ajvOptions = { allErrors: true, strict: false, validateFormats: false, verbose: true } as const;

/** A tool's argument check: whether arguments pass, and every problem when they do not. */
interface Check {
  passes(args: unknown): boolean;
  problems(args: unknown): ErrorObject[];
}

/**
 * Checks tool arguments against their input schemas and reports every violation by JSON
 * path. A schema is compiled on the tool's first call, not at registration: compiling
 * every tool's schema was over a quarter of a `spillway call`'s start-up, for tools that
 * one call never uses; a builtin tool's check is usually ready-made from the build.
 */
export class ArgumentValidator {
  private ownAjv: Ajv | undefined;
  private checkedAjv: Ajv | undefined;
  private readonly schemas = new Map<string, JsonSchema>();
  /** A tool's check, or null for a schema ajv could not compile (the tool is then not validated locally). */
  private readonly checks = new Map<string, Check | null>();

  /** @param onUncompilable told once per schema that ajv cannot compile (an upstream server's dialect, say): not fatal. */
  constructor(private readonly onUncompilable: (tool: string, problem: string) => void = () => undefined) {}

  register(tool: string, schema: JsonSchema): void {
    this.schemas.set(tool, schema);
    this.checks.delete(tool);
  }

  forget(tool: string): void {
    this.schemas.delete(tool);
    this.checks.delete(tool);
  }

  /**
   * Makes a tool's check now instead of on its first call (a served host does this
   * for a tool whose first call should not wait: the first compile also builds ajv's own
   * meta-schema for a schema not spillway's own, ~0.1–0.2 s here). A no-op for a tool already done or unknown.
   */
  prepare(tool: string): void {
    this.checkOf(tool);
  }

  private checkOf(tool: string): Check | undefined {
    const known = this.checks.get(tool);
    if (known !== undefined) return known ?? undefined;
    const schema = this.schemas.get(tool);
    if (schema === undefined) return undefined;
    const { $schema: _dialect, ...rest } = schema;
    const own = ownSchemas.has(schema);
    const prebuilt = own ? prebuiltToolCheck(rest) : undefined;
    try {
      let check: Check;
      if (prebuilt !== undefined) {
        // The detail of a failure comes from the same schema compiled with every error, only then.
        let detailed: Check | undefined;
        check = { passes: prebuilt, problems: (args) => (detailed ??= this.compiledCheck(rest, true)).problems(args) };
      } else check = this.compiledCheck(rest, own);
      this.checks.set(tool, check);
      return check;
    } catch (error) {
      this.checks.set(tool, null);
      this.onUncompilable(tool, error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  private compiledCheck(schema: object, own: boolean): Check {
    const Ajv = lazyAjv();
    const ajv = own ? (this.ownAjv ??= new Ajv({ ...ajvOptions, validateSchema: false })) : (this.checkedAjv ??= new Ajv(ajvOptions));
    const validate = ajv.compile(schema);
    return {
      passes: (args) => validate(args),
      problems: (args) => (validate(args) ? [] : (validate.errors ?? [])),
    };
  }

  /** Throws INVALID_ARGUMENTS listing every problem; `source` names where the arguments came from. */
  validate(tool: string, args: unknown, source?: string): void {
    const check = this.checkOf(tool);
    if (check === undefined || check.passes(args)) return;
    const problems = [...new Set(check.problems(args).map((error) => describeAjvError(error)))];
    const from = source === undefined ? '' : ` (arguments read from ${source})`;
    throw new SpillwayError('INVALID_ARGUMENTS', `Arguments for ${tool} are invalid${from}:\n- ${problems.join('\n- ')}`, {
      tool,
      errors: problems,
      ...(source === undefined ? {} : { argsPath: source }),
    });
  }
}
