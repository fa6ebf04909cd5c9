// The Tomcat operator's entry point (`npm start -w @tosdk/sample-tomcat` builds and runs it; a
// container runs `node apps/tomcat/dist/main.js`). SIGINT and SIGTERM stop it cleanly with exit code 0.
import 'reflect-metadata';
import { READY_LINE, runTomcatOperator } from './run.js';
import type { RunningTomcatOperator } from './run.js';
import { settingsFromEnvironment } from './settings.js';

/** Longest a clean stop may take before the process exits with code 1. */
const STOP_DEADLINE_MS = 20_000;

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  const settings = settingsFromEnvironment();
  const state: { running?: RunningTomcatOperator } = {};
  let stopping: Promise<void> | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    say(`tomcat operator: ${signal} received, stopping`);
    setTimeout(() => {
      process.stderr.write(`tomcat operator: not stopped after ${STOP_DEADLINE_MS} ms, exiting\n`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    stopping = (state.running?.stop() ?? Promise.resolve()).then(
      () => {
        say('tomcat operator: stopped');
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`tomcat operator: stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const running = await runTomcatOperator(settings);
  state.running = running;
  if (stopping) {
    await running.stop();
    return;
  }
  const e = running.embedded;
  say();
  say(
    `Tomcat operator (controllers tomcat and webapp) running against ${e ? `the embedded API server ${e.server.url}` : 'the configured cluster'}`,
  );
  say(`  health:  ${running.httpUrl}/health/liveness  ${running.httpUrl}/health/readiness`);
  say(`  metrics: ${running.httpUrl}/metrics`);
  if (e) {
    say(
      `  watch:   kubectl --kubeconfig ${e.kubeconfigPath} get tomcats,webapps,configmaps,deployments,pods`,
    );
    say(
      `  scale:   kubectl --kubeconfig ${e.kubeconfigPath} patch tomcat test-tomcat --type merge -p '{"spec":{"replicas":3}}'`,
    );
  }
  say('  stop:    Ctrl-C');
  say(READY_LINE);
}

main().catch((error: unknown) => {
  process.stderr.write(`tomcat operator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
