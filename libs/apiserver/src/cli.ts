#!/usr/bin/env node
/**
 * `tosdk-apiserver`: runs the in-memory Kubernetes API server from the command line.
 *
 * ```
 * tosdk-apiserver --port 6443 --kubeconfig ./kubeconfig [--host 127.0.0.1] [--no-tls] [--simulate-workloads] [--state ./state.json]
 * ```
 * Prints the URL and the kubeconfig path (its directory is created), keeps objects in the `--state`
 * file across restarts, and stops on SIGINT or SIGTERM.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeApiServer } from './server.js';

/** Thrown for bad command-line arguments. */
export class CliUsageError extends Error {
  readonly code = 'CLI_USAGE';
}

const USAGE =
  'usage: tosdk-apiserver [--port 6443] [--host 127.0.0.1] [--kubeconfig ./kubeconfig] [--no-tls] [--simulate-workloads] [--state FILE]';

/** Runs the CLI with `argv` (without node and script); resolves with the running server. */
export async function main(
  argv: string[],
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Promise<KubeApiServer> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '6443' },
        host: { type: 'string', default: '127.0.0.1' },
        kubeconfig: { type: 'string', default: './kubeconfig' },
        'no-tls': { type: 'boolean', default: false },
        'simulate-workloads': { type: 'boolean', default: false },
        state: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (e) {
    throw new CliUsageError(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    out(USAGE);
    process.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliUsageError(`--port must be 0..65535\n${USAGE}`);
  const server = await KubeApiServer.start({
    port,
    host: values.host,
    tls: !values['no-tls'],
    simulateWorkloads: values['simulate-workloads'],
    ...(values.state !== undefined ? { stateFile: resolve(values.state) } : {}),
  });
  const path = resolve(values.kubeconfig);
  mkdirSync(dirname(path), { recursive: true });
  await server.writeKubeconfig(path);
  out(`tosdk-apiserver listening on ${server.url}`);
  out(`kubeconfig written to ${path}`);
  if (values.state !== undefined) out(`state kept in ${resolve(values.state)}`);
  out(`request accounting (admin only): ${server.url}/debug/tosdk/requests`);
  return server;
}

/** Whether this module is the process's entry point (run as `tosdk-apiserver` or `node cli.js`). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

const isEntry = isEntryPoint();
if (isEntry) {
  main(process.argv.slice(2)).then(
    (server) => {
      const stop = (): void => {
        void server.stop().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(err instanceof CliUsageError ? 2 : 1);
    },
  );
}
