import type { ToolDefinition } from '../host/tool.js';

/**
 * A local tool that cannot read files and answers with what it received: the
 * walkthrough's stand-in for an upstream tool (an issue tracker, a mailer)
 * that needs data as arguments.
 */
export const echoTool: ToolDefinition = {
  name: 'echo',
  description:
    'Demo tool: returns the arguments it received, with their size. It cannot read sandbox files: to send it file contents, use call_with_args_file with {"$file": PATH} references.',
  inputSchema: { type: 'object', additionalProperties: true, properties: {} },
  annotations: { title: 'Echo (demo)', readOnlyHint: true, openWorldHint: false },
  handler(args) {
    const text = JSON.stringify(args);
    return { value: { receivedCharacters: text.length, receivedKeys: Object.keys(args), arguments: args } };
  },
};
