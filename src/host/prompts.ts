import { SpillwayError } from '../errors.js';
import type { Config } from '../config/schema.js';
import type { ConversationSandbox } from '../sandbox/index.js';

/** Where a prompt is rendered or completed: the asking session's conversation. */
export interface PromptContext {
  conversationId: string;
  principal: string;
  sandbox: ConversationSandbox;
  config: Config;
}

/** One message of a rendered prompt (the MCP PromptMessage shapes spillway uses). */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content:
    | { type: 'text'; text: string }
    | { type: 'image'; data: string; mimeType: string }
    | { type: 'resource'; resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string } };
}

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
  /** Values for completion/complete, given what the user typed so far (at most 100 are sent). */
  complete?: (typed: string, context: PromptContext) => readonly string[] | Promise<readonly string[]>;
}

/** A prompt a client offers its user (MCP prompts/list, prompts/get); embedders register their own with host.registerPrompt. */
export interface PromptDefinition {
  name: string;
  title?: string;
  description: string;
  arguments?: readonly PromptArgument[];
  render(args: Record<string, string>, context: PromptContext): PromptMessage[] | Promise<PromptMessage[]>;
}

const promptName = /^[A-Za-z0-9_.-]{1,64}$/;

/** The host's prompts by name; `onChange` runs after a registration or removal (prompts/list_changed). */
export class PromptRegistry {
  private readonly prompts = new Map<string, PromptDefinition>();

  constructor(private readonly onChange: () => void) {}

  register(prompt: PromptDefinition): void {
    if (!promptName.test(prompt.name)) {
      throw new SpillwayError('CONFIG_INVALID', `Prompt name ${JSON.stringify(prompt.name)} must be 1-64 letters, digits, "_", "." or "-".`);
    }
    this.prompts.set(prompt.name, prompt);
    this.onChange();
  }

  unregister(name: string): boolean {
    const removed = this.prompts.delete(name);
    if (removed) this.onChange();
    return removed;
  }

  get(name: string): PromptDefinition | undefined {
    return this.prompts.get(name);
  }

  list(): PromptDefinition[] {
    return [...this.prompts.values()];
  }
}

/** The arguments a prompts/get names, checked against the prompt's declared ones (a missing required one is refused by name). */
export function checkPromptArguments(prompt: PromptDefinition, given: Record<string, string> | undefined): Record<string, string> {
  const args = given ?? {};
  const declared = new Set((prompt.arguments ?? []).map((argument) => argument.name));
  const unknown = Object.keys(args).filter((name) => !declared.has(name));
  if (unknown.length > 0) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `Prompt ${prompt.name} has no argument ${unknown.map((name) => JSON.stringify(name)).join(', ')}; it takes ${[...declared].join(', ') || 'none'}.`,
    );
  }
  const missing = (prompt.arguments ?? []).filter((argument) => argument.required === true && (args[argument.name] ?? '') === '');
  if (missing.length > 0) {
    throw new SpillwayError('INVALID_ARGUMENTS', `Prompt ${prompt.name} needs ${missing.map((argument) => argument.name).join(', ')}.`);
  }
  return args;
}
