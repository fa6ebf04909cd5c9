// Runs kubectl (/usr/bin/kubectl, or $KUBECTL) against an API server of the test process. Used by the
// kubectl end-to-end tests and, through deploy-support.ts, by the deploy and RBAC-proof tests.
import { spawn } from 'node:child_process';

/** The kubectl binary the tests run (.ci/run installs it when missing). */
export const KUBECTL = process.env['KUBECTL'] ?? '/usr/bin/kubectl';

/** What a kubectl run gave. */
export interface KubectlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link kubectl}. */
export interface KubectlOptions {
  /** Standard input (default: none). */
  input?: string;
  /** Killed after this long (default 20 s). */
  timeoutMs?: number;
  /** Ends the process once its output matches (for `get -w`). */
  untilStdout?: RegExp;
  /** Receives the output so far, while it runs. */
  live?: { stdout: string };
}

/**
 * Runs kubectl against the test server asynchronously (so the in-process server keeps answering),
 * with a timeout.
 */
export function kubectl(kubeconfig: string, args: string[], opts: KubectlOptions = {}): Promise<KubectlRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (opts.live) opts.live.stdout = stdout;
      if (opts.untilStdout?.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
