import type { Config } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import { closeNames } from '../util/close-names.js';
import type { MissingToolExplainer } from './host-hooks.js';
import { listingDependsOnConfig, listTool } from './list-tool.js';
import type { ListedTool, ToolDefinition } from './tool.js';
import { ArgumentValidator } from './validate-arguments.js';

/**
 * The host's tools by name, their argument validation, and what a call to a
 * tool that is not there is told. `onChanged` is told when the set changes
 * (once for a whole `change`).
 */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly validator: ArgumentValidator;
  private readonly missingToolExplainers: MissingToolExplainer[] = [];
  private changesHeld = 0;
  private changedWhileHeld = false;

  constructor(
    private readonly onChanged: () => void,
    onUncompilable: (tool: string, problem: string) => void,
  ) {
    this.validator = new ArgumentValidator(onUncompilable);
  }

  get size(): number {
    return this.tools.size;
  }

  register(tool: ToolDefinition): void {
    if (this.tools.has(tool.name)) throw new SpillwayError('TOOL_EXISTS', `A tool named ${tool.name} is already registered.`, { tool: tool.name });
    this.validator.register(tool.name, tool.inputSchema);
    this.tools.set(tool.name, tool);
    this.changed();
  }

  unregister(name: string): boolean {
    const removed = this.tools.delete(name);
    this.validator.forget(name);
    if (removed) this.changed();
    return removed;
  }

  /** Runs `change` (several registrations) and tells `onChanged` once after it, if it changed anything. */
  change(change: () => void): void {
    this.changesHeld += 1;
    try {
      change();
    } finally {
      this.changesHeld -= 1;
      if (this.changesHeld === 0 && this.changedWhileHeld) {
        this.changedWhileHeld = false;
        this.onChanged();
      }
    }
  }

  private changed(): void {
    if (this.changesHeld > 0) this.changedWhileHeld = true;
    else this.onChanged();
  }

  /** A tool's own definition, or undefined. */
  definition(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Every tool as clients see it, descriptions resolved against `config`. */
  list(config: Config): ListedTool[] {
    return [...this.tools.values()].map((tool) => listTool(tool, config));
  }

  /** The listing of the tools whose description depends on the configuration, to compare across a reload. */
  configDependentListing(config: Config): string {
    const dependent = [...this.tools.values()].filter(listingDependsOnConfig).map((tool) => listTool(tool, config));
    return JSON.stringify(dependent.map(({ name, description, annotations }) => [name, description, annotations]));
  }

  /** Compiles the tool's argument schema ahead of its first call (see ArgumentValidator.prepare). */
  prepareValidator(tool: string): void {
    this.validator.prepare(tool);
  }

  /** Throws INVALID_ARGUMENTS listing every problem; `source` names where the arguments came from. */
  validate(tool: string, args: unknown, source?: string): void {
    this.validator.validate(tool, args, source);
  }

  onMissingTool(explain: MissingToolExplainer): void {
    this.missingToolExplainers.push(explain);
  }

  explainMissingTool(name: string): SpillwayError | undefined {
    for (const explain of this.missingToolExplainers) {
      const error = explain(name);
      if (error !== undefined) return error;
    }
    return undefined;
  }

  /** The tool, or the best error for its absence: an explainer's, else TOOL_NOT_FOUND with close names. */
  require(name: string): ToolDefinition {
    const tool = this.tools.get(name);
    if (tool !== undefined) return tool;
    const explained = this.explainMissingTool(name);
    if (explained !== undefined) throw explained;
    const similar = closeNames(name, this.tools.keys());
    const hint = similar.length > 0 ? ` Did you mean: ${similar.join(', ')}?` : ` Available tools: ${[...this.tools.keys()].slice(0, 40).join(', ')}.`;
    throw new SpillwayError('TOOL_NOT_FOUND', `There is no tool named ${JSON.stringify(name)}.${hint}`, { tool: name, similar });
  }
}
