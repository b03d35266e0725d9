/** The CLI's two channels: results on stdout, messages on stderr (stdout may be an MCP transport). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** True when stdout is a terminal (progress bars, colours). */
  interactive: boolean;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  interactive: process.stdout.isTTY === true,
};

export type CommandHandler = (argv: string[], io: CliIo) => Promise<number>;

/**
 * A message on one line, for a failure printed on stderr: a list under a
 * heading ("Invalid configuration:\n- a\n- b") becomes "Invalid configuration: a; b".
 */
export function oneLine(message: string): string {
  const [head = '', ...rest] = message
    .split('\n')
    .map((line) => line.trim().replace(/^- /, ''))
    .filter(Boolean);
  if (rest.length === 0) return head;
  return head.endsWith(':') ? `${head} ${rest.join('; ')}` : [head, ...rest].join('; ');
}
