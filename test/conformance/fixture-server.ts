import { loadConfig } from '../../src/config/load-config.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { createHost } from '../../src/runtime/create-host.js';
import { registerReferenceFixtures } from './reference-fixtures.js';

/**
 * A spillway host with the conformance suite's reference fixtures, on
 * Streamable HTTP: what an embedder gets from createHost + startHttpFront
 * with its own tools, prompts and resources. scripts/conformance.mjs starts it
 * (`node dist/test/conformance/fixture-server.js --config FILE`) beside a plain
 * `spillway serve`, and reads the URL from the same banner line.
 */
const configIndex = process.argv.indexOf('--config');
const config = loadConfig(configIndex === -1 ? {} : { file: process.argv[configIndex + 1] });
const host = await createHost({ config });
registerReferenceFixtures(host);
const front = await startHttpFront(host, { host: config.server.host, port: config.server.port, path: config.server.path, auth: config.server.auth });
console.log(`spillway (with the conformance fixtures) is serving MCP (Streamable HTTP) at ${front.url}`);
const stop = () => {
  void front
    .close()
    .then(() => host.close())
    .finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
