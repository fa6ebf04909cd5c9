// The widgets benchmark's process handling: the API server process and the contender processes,
// spoken to over IPC, every wait bounded by a timeout.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type {
  Accounting,
  Connection,
  ContenderName,
  ContenderReport,
  FromContender,
  FromServer,
  Phase,
  ToContender,
  ToServer,
} from './widgets-common.js';

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

/** Thrown when a benchmark process fails, exits early or does not answer in time. */
export class WidgetsBenchError extends Error {
  readonly code = 'WIDGETS_BENCH';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WidgetsBenchError';
  }
}

/** Resolves with the first message of `type` from `child`; rejects on an error message, an exit, or the timeout. */
function next<M extends { type: string }, T extends M['type']>(
  child: ChildProcess,
  what: string,
  type: T,
  timeoutMs: number,
): Promise<Extract<M, { type: T }>> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (m: M): void => {
      if (m.type === type) {
        cleanup();
        resolve(m as Extract<M, { type: T }>);
      } else if (m.type === 'error') {
        cleanup();
        reject(new WidgetsBenchError(`${what} failed: ${(m as unknown as { message: string }).message}`));
      }
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new WidgetsBenchError(`${what} exited with ${String(code)} while waiting for '${type}'`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new WidgetsBenchError(`${what}: no '${type}' within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

/** The API server in its own process. */
export class ServerProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly connection: Connection,
  ) {}

  /** Starts @tosdk/apiserver (HTTPS unless `tls` is false) in a child process. */
  static async start(tls: boolean): Promise<ServerProcess> {
    const child = fork(here('./widgets-server.js'), tls ? [] : ['--no-tls'], {
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const m = await next<FromServer, 'listening'>(child, 'the API server process', 'listening', 60_000);
    return new ServerProcess(child, m.connection);
  }

  private send(m: ToServer): void {
    this.child.send(m);
  }

  /** Creates the Widget CRD, the namespace and `n` widgets. */
  async seed(n: number): Promise<void> {
    const seeded = next<FromServer, 'seeded'>(this.child, 'the API server process', 'seeded', 600_000);
    this.send({ type: 'seed', n });
    await seeded;
  }

  /** Forgets the request log and restarts the server's CPU clock. */
  reset(): void {
    this.send({ type: 'reset' });
  }

  /** Resolves once all `n` widgets have their status and ConfigMap (as seen by the server). */
  converged(n: number, timeoutMs: number): Promise<unknown> {
    const p = next<FromServer, 'converged'>(this.child, 'the API server process', 'converged', timeoutMs);
    this.send({ type: 'expect', n });
    return p;
  }

  /** Requests counted since the last reset. */
  async accounting(): Promise<Accounting> {
    const p = next<FromServer, 'accounting'>(this.child, 'the API server process', 'accounting', 60_000);
    this.send({ type: 'accounting' });
    return (await p).accounting;
  }

  /**
   * The accounting once writes stopped coming (the same write count twice 250 ms apart, at most
   * `timeoutMs`): an operator's trailing writes after convergence are counted too.
   */
  async settledAccounting(timeoutMs = 10_000): Promise<Accounting> {
    const deadline = Date.now() + timeoutMs;
    let last = await this.accounting();
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = await this.accounting();
      if (now.writesTotal === last.writesTotal) return now;
      last = now;
    }
    return last;
  }

  async stop(): Promise<void> {
    const done = exited(this.child);
    this.send({ type: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await done;
    clearTimeout(timer);
  }
}

/** One contender in its own process. */
export class ContenderProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly name: ContenderName,
  ) {}

  /** Forks the contender process and loads `name` (not timed); `execArgv` e.g. for `--cpu-prof`. */
  static async start(
    name: ContenderName,
    connection: Connection,
    n: number,
    phase: Phase,
    execArgv: string[] = [],
  ): Promise<ContenderProcess> {
    const child = fork(here('./widgets-contender.js'), [], {
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const c = new ContenderProcess(child, name);
    const ready = next<FromContender, 'ready'>(child, c.what(), 'ready', 120_000);
    c.send({ type: 'init', contender: name, connection, n, phase });
    await ready;
    return c;
  }

  private what(): string {
    return `contender ${this.name}`;
  }

  private send(m: ToContender): void {
    this.child.send(m);
  }

  /** Starts the timed work; the promise resolves when the contender says it is done. */
  go(timeoutMs: number): Promise<Record<string, number> | undefined> {
    const done = next<FromContender, 'done'>(this.child, this.what(), 'done', timeoutMs);
    this.send({ type: 'go' });
    return done.then((m) => m.extra);
  }

  /** CPU time since `go`, peak RSS and the contender's own figures. */
  async report(): Promise<ContenderReport> {
    const p = next<FromContender, 'report'>(this.child, this.what(), 'report', 60_000);
    this.send({ type: 'report' });
    return (await p).report;
  }

  /** Stops the contender (its process exits normally). */
  async stop(): Promise<void> {
    const done = exited(this.child);
    this.send({ type: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await done;
    clearTimeout(timer);
  }

  /** Rejects when the contender reports an error or exits before `promise` settles. */
  guard<T>(promise: Promise<T>): Promise<T> {
    const failed = new Promise<never>((_, reject) => {
      const onMessage = (m: FromContender): void => {
        if (m.type === 'error') reject(new WidgetsBenchError(`${this.what()} failed: ${m.message}`));
      };
      this.child.on('message', onMessage);
      this.child.once('exit', (code) =>
        reject(new WidgetsBenchError(`${this.what()} exited with ${String(code)}`)),
      );
      void promise.finally(() => this.child.off('message', onMessage)).catch(() => undefined);
    });
    failed.catch(() => undefined);
    return Promise.race([promise, failed]);
  }
}
