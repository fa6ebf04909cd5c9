// The MySQL schema operator's entry point (`npm start -w @tosdk/sample-mysql-schema` builds and runs
// it; a container runs `node apps/mysql-schema/dist/main.js`). Without MYSQL_HOST it says so and
// exits with code 2; SIGINT and SIGTERM stop it cleanly with exit code 0.
import 'reflect-metadata';
import { MySQLError } from './database/mysql-errors.js';
import { describeConnection } from './database/mysql-settings.js';
import { READY_LINE, runMySQLSchemaOperator } from './run.js';
import type { RunningMySQLSchemaOperator } from './run.js';
import { settingsFromEnvironment } from './settings.js';

/** Longest a clean stop may take before the process exits with code 1. */
const STOP_DEADLINE_MS = 20_000;

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  const settings = settingsFromEnvironment();
  const state: { running?: RunningMySQLSchemaOperator } = {};
  let stopping: Promise<void> | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    say(`mysql-schema operator: ${signal} received, stopping`);
    setTimeout(() => {
      process.stderr.write(`mysql-schema operator: not stopped after ${STOP_DEADLINE_MS} ms, exiting\n`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    stopping = (state.running?.stop() ?? Promise.resolve()).then(
      () => {
        say('mysql-schema operator: stopped');
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`mysql-schema operator: stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const running = await runMySQLSchemaOperator(settings);
  state.running = running;
  if (stopping) {
    await running.stop();
    return;
  }
  const e = running.embedded;
  say();
  say(
    `MySQLSchema operator running against ${e ? `the embedded API server ${e.server.url}` : 'the configured cluster'}, database ${describeConnection(settings.mysql)}`,
  );
  say(`  health:  ${running.httpUrl}/health/liveness  ${running.httpUrl}/health/readiness`);
  say(`  metrics: ${running.httpUrl}/metrics`);
  if (e) {
    say(`  watch:   kubectl --kubeconfig ${e.kubeconfigPath} get mysqlschemas,secrets`);
    say(`  edit:    kubectl --kubeconfig ${e.kubeconfigPath} edit mysqlschema example`);
  }
  say('  stop:    Ctrl-C');
  say(READY_LINE);
}

main().catch((error: unknown) => {
  process.stderr.write(`mysql-schema operator: ${error instanceof Error ? error.message : String(error)}\n`);
  // a configuration problem (exit 2) is told apart from a failure at run time (exit 1)
  process.exit(error instanceof MySQLError && error.code !== 'MySQLConnection' ? 2 : 1);
});
