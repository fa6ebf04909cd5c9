// The widgets benchmark's contender process: `node widgets-contender.js`, driven over IPC by
// bench/widgets.ts. `init` loads only the named contender's module (so its CPU time and memory are
// its own), `go` starts the timed work, `report` gives CPU time since `go` and peak RSS, `stop` ends
// the process (normally, so a `--cpu-prof` profile is written).
import type { ContenderRun, FromContender, ToContender } from './widgets-common.js';

const send = (m: FromContender): void => {
  process.send!(m);
};
const fail = (e: unknown): void =>
  send({ type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
process.on('unhandledRejection', fail);

let run: ContenderRun | undefined;
let cpuAtGo: NodeJS.CpuUsage | undefined;
let readyRss = 0;
let extra: Record<string, number> = {};

async function load(m: Extract<ToContender, { type: 'init' }>): Promise<ContenderRun> {
  switch (m.contender) {
    case 'floor-raw':
      return (await import('./widgets-floor.js')).floorRaw(m.connection);
    case 'floor-list-compare':
      return (await import('./widgets-floor.js')).floorListCompare(m.connection);
    case 'tosdk':
      return (await import('./widgets-tosdk.js')).tosdk(m.connection, m.n, m.phase, false);
    case 'tosdk-ssa':
      return (await import('./widgets-tosdk.js')).tosdk(m.connection, m.n, m.phase, false, true);
    case 'tosdk-workflow':
      return (await import('./widgets-tosdk.js')).tosdk(m.connection, m.n, m.phase, true);
    case 'tosdk-idle-reconciler':
      return (await import('./widgets-tosdk.js')).tosdkIdleReconciler(m.connection, m.n);
    case 'client-node':
      return (await import('./widgets-client-node.js')).clientNodeLoop(m.connection, m.n, m.phase);
    case 'dot-i':
      return (await import('./widgets-dot-i.js')).dotI(m.connection, m.n, m.phase);
  }
}

process.on('message', (m: ToContender) => {
  switch (m.type) {
    case 'init':
      load(m).then((r) => {
        run = r;
        readyRss = process.memoryUsage.rss();
        send({ type: 'ready' });
      }, fail);
      break;
    case 'go':
      cpuAtGo = process.cpuUsage();
      run!.go().then((e) => {
        extra = e ?? {};
        send({ type: 'done', extra });
      }, fail);
      break;
    case 'report': {
      const cpu = process.cpuUsage(cpuAtGo);
      const total = process.cpuUsage();
      send({
        type: 'report',
        report: {
          cpuMs: (cpu.user + cpu.system) / 1000,
          cpuTotalMs: (total.user + total.system) / 1000,
          maxRssBytes: process.resourceUsage().maxRSS * 1024,
          readyRssBytes: readyRss,
          extra,
        },
      });
      break;
    }
    case 'stop':
      void (run?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
      break;
  }
});
