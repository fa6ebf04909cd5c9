import { isAbsolute, resolve, sep } from 'node:path';
import { KubeConfigError } from './kube-config-error.js';

/** The `exec` section of a kubeconfig user (client.authentication.k8s.io credential plugins). */
export interface ExecConfig {
  command?: string;
  args?: string[];
  env?: Array<{ name?: string; value?: string }> | null;
  apiVersion?: string;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
}

/** What a plugin's `ExecCredential` status gave. */
export interface ExecCredentials {
  token?: string;
  cert?: Buffer;
  key?: Buffer;
}

/** Stderr kept for the error message of a failing plugin. */
const STDERR_KEPT = 4096;

/**
 * Runs a kubeconfig user's exec credential plugin as kubectl (client-go) does: the plugin gets
 * `KUBERNETES_EXEC_INFO` (the `ExecCredential` with `spec.interactive` and, with
 * `provideClusterInfo`, `spec.cluster`), the user's `env` on top of the process's environment, and
 * stdin only when it may be interactive; a command with a path separator is relative to the
 * kubeconfig that names it. Its credentials are kept until their `expirationTimestamp`, or, without
 * one, until the server rejects them ({@link rejected}); one plugin run at a time.
 */
export class ExecCredentialPlugin {
  private cached?: ExecCredentials;
  private expiresAt?: number;
  private running?: Promise<ExecCredentials>;

  constructor(
    private readonly exec: ExecConfig,
    /** The user's name, for messages. */
    private readonly user: string,
    /** Directory of the kubeconfig that defines the user (a relative command resolves against it). */
    private readonly dir: string,
    /** Where the kubeconfig came from, for messages. */
    private readonly source: string,
    /** The `spec.cluster` of `KUBERNETES_EXEC_INFO` (read when `provideClusterInfo` is set). */
    private readonly clusterInfo: () => Record<string, unknown>,
  ) {}

  /** The current credentials: the cached ones while valid, else the plugin's new ones. */
  credentials(): Promise<ExecCredentials> {
    const cached = this.cached;
    if (cached && (this.expiresAt === undefined || Date.now() < this.expiresAt))
      return Promise.resolve(cached);
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** The server answered 401 to `used` (or to the current credentials): the next call runs the plugin again. */
  rejected(used?: ExecCredentials): void {
    if (used === undefined || used === this.cached) this.cached = undefined;
  }

  private where(): string {
    return `the exec plugin of user "${this.user}" (${this.source})`;
  }

  private fail(what: string, cause?: unknown): KubeConfigError {
    return new KubeConfigError(`${this.where()} ${what}`, undefined, { cause });
  }

  private interactive(): boolean {
    const mode = this.exec.interactiveMode ?? 'IfAvailable';
    const terminal = process.stdin.isTTY === true;
    switch (mode) {
      case 'Never':
        return false;
      case 'IfAvailable':
        return terminal;
      case 'Always':
        if (!terminal) {
          throw this.fail(
            'has interactiveMode Always, but standard input is not a terminal: an operator cannot answer its prompts. ' +
              'Use credentials that need no prompt (a service account token, or a plugin with interactiveMode Never or IfAvailable)',
          );
        }
        return true;
      default:
        throw this.fail(
          `has interactiveMode ${JSON.stringify(mode)}: set it to Never, IfAvailable or Always`,
        );
    }
  }

  private async run(): Promise<ExecCredentials> {
    const exec = this.exec;
    if (!exec.command) throw this.fail('has no command: set exec.command in the kubeconfig');
    const apiVersion = exec.apiVersion;
    if (!apiVersion) {
      throw this.fail(
        'has no apiVersion: set exec.apiVersion (e.g. client.authentication.k8s.io/v1) in the kubeconfig',
      );
    }
    const interactive = this.interactive();
    const command =
      exec.command.includes(sep) && !isAbsolute(exec.command)
        ? resolve(this.dir, exec.command)
        : exec.command;
    const spec: Record<string, unknown> = { interactive };
    if (exec.provideClusterInfo) spec.cluster = this.clusterInfo();
    const env: Record<string, string | undefined> = { ...process.env };
    for (const entry of exec.env ?? []) if (entry?.name) env[entry.name] = entry.value ?? '';
    env.KUBERNETES_EXEC_INFO = JSON.stringify({ apiVersion, kind: 'ExecCredential', spec });

    const { spawn } = process.getBuiltinModule('node:child_process');
    const { stdout, stderr, code, signal } = await new Promise<{
      stdout: string;
      stderr: string;
      code: number | null;
      signal: NodeJS.Signals | null;
    }>((done, reject) => {
      const child = spawn(command, exec.args ?? [], {
        env,
        stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        err = (err + chunk).slice(-STDERR_KEPT);
      });
      child.once('error', (cause: NodeJS.ErrnoException) => {
        if (cause.code === 'ENOENT') {
          const hint = exec.installHint ? `\n${exec.installHint}` : '';
          reject(
            this.fail(
              `cannot run: executable ${command} not found; install it (or fix exec.command in the kubeconfig, on PATH or relative to the kubeconfig's directory)${hint}`,
              cause,
            ),
          );
        } else reject(this.fail(`cannot run ${command}: ${cause.message}`, cause));
      });
      child.once('close', (exitCode, exitSignal) =>
        done({
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: err,
          code: exitCode,
          signal: exitSignal,
        }),
      );
    });
    if (code !== 0) {
      const how = signal ? `was killed by ${signal}` : `failed with exit code ${code}`;
      const said = stderr.trim() ? `; it said: ${stderr.trim()}` : '';
      throw this.fail(
        `${command} ${how}${said}; check that the plugin can get credentials when run as the operator (logged in, configured)`,
      );
    }
    return this.accept(this.parse(stdout, command, apiVersion));
  }

  private parse(
    stdout: string,
    command: string,
    apiVersion: string,
  ): {
    status: {
      token?: string;
      clientCertificateData?: string;
      clientKeyData?: string;
      expirationTimestamp?: string;
    };
  } {
    let credential: {
      apiVersion?: unknown;
      kind?: unknown;
      status?: {
        token?: string;
        clientCertificateData?: string;
        clientKeyData?: string;
        expirationTimestamp?: string;
      };
    };
    try {
      credential = JSON.parse(stdout) as typeof credential;
    } catch (cause) {
      throw this.fail(
        `${command} printed no ExecCredential JSON on stdout (${(cause as Error).message})`,
        cause,
      );
    }
    if (credential?.kind !== 'ExecCredential' || credential.apiVersion !== apiVersion) {
      throw this.fail(
        `${command} printed ${JSON.stringify(credential?.apiVersion)} ${JSON.stringify(credential?.kind)}, not an ExecCredential of ${apiVersion} (exec.apiVersion): set exec.apiVersion to the version the plugin writes`,
      );
    }
    const status = credential.status;
    if (!status || typeof status !== 'object')
      throw this.fail(`${command} returned an ExecCredential without status`);
    if (!status.token && !status.clientCertificateData && !status.clientKeyData) {
      throw this.fail(`${command} returned neither a token nor a client certificate and key`);
    }
    if (!status.clientCertificateData !== !status.clientKeyData) {
      throw this.fail(`${command} returned a client certificate or key, not both`);
    }
    return { status };
  }

  private accept(credential: {
    status: {
      token?: string;
      clientCertificateData?: string;
      clientKeyData?: string;
      expirationTimestamp?: string;
    };
  }): ExecCredentials {
    const { token, clientCertificateData, clientKeyData, expirationTimestamp } = credential.status;
    const creds: ExecCredentials = {};
    if (token) creds.token = token;
    // the status carries PEM text, not base64 (client.authentication.k8s.io)
    if (clientCertificateData && clientKeyData) {
      creds.cert = Buffer.from(clientCertificateData);
      creds.key = Buffer.from(clientKeyData);
    }
    const expires = expirationTimestamp ? Date.parse(expirationTimestamp) : Number.NaN;
    this.expiresAt = Number.isFinite(expires) ? expires : undefined;
    this.cached = creds;
    return creds;
  }
}
