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
