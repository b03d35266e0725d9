import { setTimeout as delay } from 'node:timers/promises';
import type { Host } from '../../src/host/host.js';

/**
 * The tools, prompts and resources the MCP conformance suite's server
 * scenarios call by name (the reference "everything" server's fixtures),
 * registered on a spillway host through the public embedding API only:
 * `registerTool`, `host.prompts.register`, `host.resources.register`. What
 * these cannot express (a tool asking the client for sampling or elicitation,
 * an embedder's resource template) is left out, and its scenario stays a
 * listed failure.
 */

/** A 1×1 red PNG. */
const redPixelPng = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A few samples of silence as a WAV file. */
const silentWav = Buffer.concat([
  Buffer.from('RIFF', 'ascii'),
  Buffer.from([0x2c, 0, 0, 0]),
  Buffer.from('WAVEfmt ', 'ascii'),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]),
  Buffer.from('data', 'ascii'),
  Buffer.from([8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
]).toString('base64');

/** The pause the suite's descriptions ask for between a fixture's notifications. */
const stepMs = 50;

export function registerReferenceFixtures(host: Host): void {
  const noArguments = { type: 'object', properties: {} } as const;
  host.registerTool({
    name: 'test_simple_text',
    description: 'Conformance fixture: returns one text block.',
    inputSchema: noArguments,
    handler: () => ({ value: 'This is a simple text response for testing.' }),
  });
  host.registerTool({
    name: 'test_error_handling',
    description: 'Conformance fixture: always fails.',
    inputSchema: noArguments,
    handler: () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  });
  host.registerTool({
    name: 'test_image_content',
    description: 'Conformance fixture: returns a 1×1 PNG as image content.',
    inputSchema: noArguments,
    handler: () => ({ mcp: { content: [{ type: 'image', data: redPixelPng, mimeType: 'image/png' }] } }),
  });
  host.registerTool({
    name: 'test_audio_content',
    description: 'Conformance fixture: returns a short WAV as audio content.',
    inputSchema: noArguments,
    handler: () => ({ mcp: { content: [{ type: 'audio', data: silentWav, mimeType: 'audio/wav' }] } }),
  });
  host.registerTool({
    name: 'test_embedded_resource',
    description: 'Conformance fixture: returns an embedded text resource.',
    inputSchema: noArguments,
    handler: () => ({
      mcp: {
        content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
      },
    }),
  });
  host.registerTool({
    name: 'test_multiple_content_types',
    description: 'Conformance fixture: returns text, an image and an embedded resource.',
    inputSchema: noArguments,
    handler: () => ({
      mcp: {
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: redPixelPng, mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
        ],
      },
    }),
  });
  host.registerTool({
    name: 'test_tool_with_logging',
    description: 'Conformance fixture: sends three log messages while it runs.',
    inputSchema: noArguments,
    async handler(_args, context) {
      context.notify('info', 'Tool execution started');
      await delay(stepMs);
      context.notify('info', 'Tool processing data');
      await delay(stepMs);
      context.notify('info', 'Tool execution completed');
      return { value: 'Tool with logging executed successfully' };
    },
  });
  host.registerTool({
    name: 'test_tool_with_progress',
    description: 'Conformance fixture: reports progress 0, 50 and 100 of 100.',
    inputSchema: noArguments,
    async handler(_args, context) {
      context.progress({ progress: 0, total: 100 });
      await delay(stepMs);
      context.progress({ progress: 50, total: 100 });
      await delay(stepMs);
      context.progress({ progress: 100, total: 100 });
      return { value: 'Progress test completed' };
    },
  });

  host.prompts.register({
    name: 'test_simple_prompt',
    description: 'Conformance fixture: a prompt without arguments.',
    render: () => [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  });
  host.prompts.register({
    name: 'test_prompt_with_arguments',
    description: 'Conformance fixture: a prompt with two arguments.',
    arguments: [
      {
        name: 'arg1',
        description: 'First test argument',
        required: true,
        complete: (typed) => ['paris', 'park', 'party'].filter((word) => word.startsWith(typed)),
      },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    render: (args) => [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }],
  });
  host.prompts.register({
    name: 'test_prompt_with_embedded_resource',
    description: 'Conformance fixture: a prompt that embeds a resource.',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    render: (args) => [
      {
        role: 'user',
        content: { type: 'resource', resource: { uri: args.resourceUri ?? '', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  });
  host.prompts.register({
    name: 'test_prompt_with_image',
    description: 'Conformance fixture: a prompt with an image.',
    render: () => [
      { role: 'user', content: { type: 'image', data: redPixelPng, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  });

  host.resources.register({
    uri: 'test://static-text',
    name: 'static-text',
    mimeType: 'text/plain',
    read: () => ({ text: 'This is the content of the static text resource.' }),
  });
  host.resources.register({
    uri: 'test://static-binary',
    name: 'static-binary',
    mimeType: 'image/png',
    read: () => ({ blob: Buffer.from(redPixelPng, 'base64') }),
  });
  host.resources.register({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    mimeType: 'text/plain',
    read: () => ({ text: 'Watched resource content' }),
  });
}
