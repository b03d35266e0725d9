import { Ajv, type ValidateFunction } from 'ajv';
import { SpillwayError } from '../errors.js';
import { describeAjvError } from '../util/schema-errors.js';
import type { JsonSchema } from './tool.js';

/** Compiles tool input schemas once and reports every violation by JSON path. */
export class ArgumentValidator {
  // verbose: errors carry parentSchema, so an unknown property can list the allowed ones.
  private readonly ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, verbose: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  /**
   * Compiles a tool's schema. A schema ajv cannot compile (an upstream server's
   * dialect, say) is not fatal: the tool is registered without local
   * validation and the reason is returned for the log.
   */
  register(tool: string, schema: JsonSchema): string | undefined {
    const { $schema: _dialect, ...rest } = schema;
    try {
      this.compiled.set(tool, this.ajv.compile(rest));
      return undefined;
    } catch (error) {
      this.compiled.delete(tool);
      return error instanceof Error ? error.message : String(error);
    }
  }

  forget(tool: string): void {
    this.compiled.delete(tool);
  }

  /** Throws INVALID_ARGUMENTS listing every problem; `source` names where the arguments came from. */
  validate(tool: string, args: unknown, source?: string): void {
    const validate = this.compiled.get(tool);
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
