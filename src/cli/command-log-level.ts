/**
 * The log level of a command a person runs and reads (demo, call, export,
 * upstreams): log.level's default, info, becomes warn, so JSON lines do not mix
 * into what the command prints; any other level set in the configuration is
 * kept. `--verbose` asks for at least info.
 */
export function commandLogLevel(configured: string, verbose = false): string {
  if (verbose) return configured === 'debug' || configured === 'trace' ? configured : 'info';
  return configured === 'info' ? 'warn' : configured;
}
