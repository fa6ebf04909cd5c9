// The WebPage operator's entry point (`npm start` runs it through scripts/start.mjs; the container
// runs `node apps/webpage/dist/main.js`). SIGINT and SIGTERM stop it cleanly with exit code 0.
// Logs: JSON lines (for log collectors) unless stdout is a terminal outside production, where
// pino-pretty makes them readable; LOG_FORMAT=json or LOG_FORMAT=pretty forces either.
import 'reflect-metadata';
import { devLogStream } from './dev/log-format.js';
import { READY_LINE, runWebPageOperator } from './run.js';
import type { RunningWebPageOperator } from './run.js';
import { settingsFromEnvironment } from './settings.js';

/** Longest a clean stop may take before the process exits with code 1. */
const STOP_DEADLINE_MS = 20_000;

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  const settings = settingsFromEnvironment();
  const state: { running?: RunningWebPageOperator } = {};
  let stopping: Promise<void> | undefined;
  const stop = (signal: NodeJS.Signals) => {
    // a terminal's Ctrl-C reaches the process twice (its group and npm's forwarding): one stop only
    if (stopping) return;
    say(`webpage operator: ${signal} received, stopping`);
    setTimeout(() => {
      process.stderr.write(`webpage operator: not stopped after ${STOP_DEADLINE_MS} ms, exiting\n`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    stopping = (state.running?.stop() ?? Promise.resolve()).then(
      () => {
        say('webpage operator: stopped');
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`webpage operator: stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const running = await runWebPageOperator(settings, devLogStream(process.env, process.stdout.isTTY));
  state.running = running;
  if (stopping) {
    // a signal arrived while starting: stop what started
    await running.stop();
    return;
  }
  const e = running.embedded;
  say();
  say(
    `WebPage operator (${settings.flavour} flavour) running against ${e ? `the embedded API server ${e.server.url}` : 'the configured cluster'}`,
  );
  say(`  health:  ${running.httpUrl}/health/liveness  ${running.httpUrl}/health/readiness`);
  say(`  metrics: ${running.httpUrl}/metrics`);
  if (e) {
    say(`  watch:   kubectl --kubeconfig ${e.kubeconfigPath} get webpages,configmaps,deployments`);
    say(`  edit:    kubectl --kubeconfig ${e.kubeconfigPath} edit webpage hello`);
  }
  say('  stop:    Ctrl-C');
  say(READY_LINE);
}

main().catch((error: unknown) => {
  process.stderr.write(`webpage operator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
