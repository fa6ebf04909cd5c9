#!/usr/bin/env node
/**
 * `tosdk-apiserver`: runs the in-memory Kubernetes API server from the command line.
 *
 * ```
 * tosdk-apiserver --port 6443 --kubeconfig ./kubeconfig [--host 127.0.0.1] [--no-tls] [--simulate-workloads]
 * ```
 * Prints the URL and the kubeconfig path, and stops on SIGINT or SIGTERM.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { KubeApiServer } from './server.js';

/** Thrown for bad command-line arguments. */
export class CliUsageError extends Error {
  readonly code = 'CLI_USAGE';
}

const USAGE =
  'usage: tosdk-apiserver [--port 6443] [--host 127.0.0.1] [--kubeconfig ./kubeconfig] [--no-tls] [--simulate-workloads]';

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
  if (values['simulate-workloads'])
    out('note: --simulate-workloads is not available in this build; workloads are stored as written');
  const server = await KubeApiServer.start({ port, host: values.host, tls: !values['no-tls'] });
  const path = resolve(values.kubeconfig);
  await server.writeKubeconfig(path);
  out(`tosdk-apiserver listening on ${server.url}`);
  out(`kubeconfig written to ${path}`);
  return server;
}

const isEntry =
  (process.argv[1] !== undefined && /cli\.(js|ts)$/.test(process.argv[1])) ||
  /tosdk-apiserver$/.test(process.argv[1] ?? '');
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
