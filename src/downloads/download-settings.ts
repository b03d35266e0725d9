import { readFileSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import { SpillwayError } from '../errors.js';

/** HS256 keys shorter than the hash (RFC 7518 § 3.2) are refused. */
export const minKeyBytes = 32;

/** What the download route and the link maker need from the configuration, read anew for each use (a reload applies). */
export interface DownloadSettings {
  /** server.publicUrl without a trailing "/", or undefined: then no card carries a link. */
  publicUrl: string | undefined;
  /** The signing key, or undefined when none is configured (signed links are then refused). */
  key: Uint8Array | undefined;
  linkTtlSeconds: number;
}

/**
 * Reads server.publicUrl and server.downloads from a configuration. The key
 * comes from the environment variable server.downloads.signingKeyEnv names,
 * or from server.downloads.signingKeyFile (trailing newlines dropped). Throws
 * DOWNLOAD_CONFIG_INVALID, naming the key, when a configured key is unset,
 * unreadable or too short, and when server.publicUrl is set without a key:
 * a per-process key would make links fail on every other replica of a fleet.
 */
export function downloadSettings(config: Config, env: NodeJS.ProcessEnv = process.env): DownloadSettings {
  const { signingKeyEnv, signingKeyFile, linkTtlSeconds } = config.server.downloads;
  const publicUrl = config.server.publicUrl?.replace(/\/+$/, '');
  let key: Uint8Array | undefined;
  if (signingKeyEnv !== undefined) {
    const value = env[signingKeyEnv];
    if (value === undefined || value === '') fail(`server.downloads.signingKeyEnv names ${signingKeyEnv}, which is not set`, 'server.downloads.signingKeyEnv');
    key = checkedKey(Buffer.from(value, 'utf8'), 'server.downloads.signingKeyEnv');
  } else if (signingKeyFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(signingKeyFile, 'utf8');
    } catch (error) {
      fail(
        `server.downloads.signingKeyFile ${signingKeyFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        'server.downloads.signingKeyFile',
      );
    }
    key = checkedKey(Buffer.from(text.replace(/[\r\n]+$/, ''), 'utf8'), 'server.downloads.signingKeyFile');
  }
  if (publicUrl !== undefined && key === undefined) {
    fail('server.publicUrl is set but no download signing key is (server.downloads.signingKeyEnv or signingKeyFile)', 'server.downloads.signingKeyEnv');
  }
  return { publicUrl, key, linkTtlSeconds };
}

function checkedKey(key: Buffer, setting: string): Buffer {
  if (key.length < minKeyBytes)
    fail(`the download signing key from ${setting} is ${key.length} bytes; it needs at least ${minKeyBytes} (e.g. openssl rand -base64 48)`, setting);
  return key;
}

function fail(reason: string, key: string): never {
  throw new SpillwayError('DOWNLOAD_CONFIG_INVALID', `${reason}. Set the same key on every replica (see docs/auth.md, "Download links").`, { key });
}
