import type { ExecuteResult } from '../host/host.js';
import { toStructuredResult, type StructuredResult } from '../host/structured-result.js';
import type { SerializedError } from '../errors.js';

/**
 * What a spillway-run AI SDK tool returns to the application: the text the
 * model reads (result or whole-record prefix, then the file reference) and
 * the structured facts beside it. The model is sent only `text`.
 */
export interface SpillwayToolOutput extends StructuredResult {
  text: string;
  isError: boolean;
  error?: SerializedError;
}

export function toToolOutput(result: ExecuteResult): SpillwayToolOutput {
  const output: SpillwayToolOutput = { text: result.text, isError: result.isError, ...toStructuredResult(result) };
  if (result.error !== undefined) output.error = result.error;
  return output;
}

/** The model's view of a spillway output: its text, as an error when the call failed. */
export function toModelOutput({ output }: { output: unknown }): { type: 'text' | 'error-text'; value: string } {
  const spillway = output as Partial<SpillwayToolOutput> | undefined;
  const text = typeof spillway?.text === 'string' ? spillway.text : (JSON.stringify(output) ?? '');
  return { type: spillway?.isError === true ? 'error-text' : 'text', value: text };
}
