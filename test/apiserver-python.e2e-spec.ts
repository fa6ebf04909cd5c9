import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeApiServer } from '@tosdk/apiserver';

// Debian's interpreter: it is the one that sees the apt package python3-kubernetes (a pyenv
// python3 earlier on PATH would not). .ci/run installs the package when it is missing.
const PYTHON = '/usr/bin/python3';
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'python');
const SCRIPT_TIMEOUT_MS = 60_000;

interface ApiErrorSeen {
  status: number;
  reason: string;
  message: string;
}

interface ScriptOutput {
  namespace: { name: string; uid: boolean };
  list: { names: string[]; resourceVersion: string; data: Record<string, Record<string, string>> };
  byLabel: string[];
  byField: string[];
  badSelector: ApiErrorSeen | null;
  notFound: ApiErrorSeen | null;
  conflict: ApiErrorSeen | null;
  watch: Array<{ type: string; name: string; data: Record<string, string> | null }>;
  writerError: string[];
  final: string[];
}

/** Runs the script without blocking the event loop (the server answers it from this process). */
function runPython(
  script: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      PYTHON,
      [join(FIXTURES, script), ...args],
      {
        timeout: SCRIPT_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
        // A clean environment: no proxy, no pyenv or user site packages in the way.
        env: {
          PATH: '/usr/bin:/bin',
          HOME: tmpdir(),
          PYTHONNOUSERSITE: '1',
          NO_PROXY: '127.0.0.1',
          LANG: 'C.UTF-8',
        },
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('the Kubernetes Python client (Debian python3-kubernetes) against KubeApiServer', () => {
  let server: KubeApiServer;
  let dir: string;
  let output: ScriptOutput;

  beforeAll(async () => {
    if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run .ci/run's system packages step`);
    server = await KubeApiServer.start({ port: 0 });
    dir = await mkdtemp(join(tmpdir(), 'tosdk-python-'));
    const kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
    const run = await runPython('configmaps.py', [kubeconfig, 'py-e2e']);
    if (run.code !== 0) {
      throw new Error(
        `python client script failed (exit ${String(run.code)}):\n${run.stderr}\n${run.stdout}`,
      );
    }
    output = JSON.parse(run.stdout) as ScriptOutput;
  }, SCRIPT_TIMEOUT_MS + 15_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('loads the kubeconfig (HTTPS with the CA data, bearer token) and creates a namespace', () => {
    expect(output.namespace).toEqual({ name: 'py-e2e', uid: true });
  });

  it('creates and lists ConfigMaps', () => {
    expect(output.list.names).toEqual(['cm-0', 'cm-1', 'cm-2']);
    expect(output.list.data['cm-2']).toEqual({ i: '2' });
    expect(output.list.resourceVersion).toMatch(/^[0-9]+$/);
  });

  it('lists by label selector and by field selector', () => {
    expect(output.byLabel).toEqual(['cm-0', 'cm-2']);
    expect(output.byField).toEqual(['cm-1']);
  });

  it('gets Kubernetes error Statuses as ApiException', () => {
    expect(output.badSelector).toEqual({
      status: 400,
      reason: 'BadRequest',
      message: expect.stringContaining(
        "unable to parse requirement: found '', expected: ',' or ')'",
      ) as unknown as string,
    });
    expect(output.notFound).toEqual({
      status: 404,
      reason: 'NotFound',
      message: 'configmaps "missing" not found',
    });
    expect(output.conflict).toEqual({
      status: 409,
      reason: 'AlreadyExists',
      message: 'configmaps "cm-0" already exists',
    });
  });

  it('watches from a resourceVersion with a label selector: replayed and live events, in order', () => {
    expect(output.writerError).toEqual([]);
    expect(output.watch).toEqual([
      { type: 'MODIFIED', name: 'cm-0', data: { i: 'patched' } },
      { type: 'DELETED', name: 'cm-1', data: { i: '1' } },
      { type: 'ADDED', name: 'cm-live', data: { live: 'yes' } },
    ]);
    expect(output.final).toEqual(['cm-0', 'cm-2', 'cm-live', 'cm-unlabelled']);
  });
});

interface Outcome {
  ok: boolean;
  status?: number;
  reason?: string;
  message?: string;
}

describe('RBAC through the Kubernetes Python client', () => {
  let server: KubeApiServer;
  let dir: string;
  let output: Record<string, Outcome> & { listedNames: string[] };

  beforeAll(async () => {
    server = await KubeApiServer.start({
      port: 0,
      rbac: true,
      users: [{ name: 'alice', token: 'alice-token' }],
    });
    dir = await mkdtemp(join(tmpdir(), 'tosdk-python-rbac-'));
    await server.writeKubeconfig(join(dir, 'admin'));
    await server.writeKubeconfig(join(dir, 'alice'), 'alice');
    const run = await runPython('rbac.py', [join(dir, 'admin'), join(dir, 'alice'), 'team']);
    if (run.code !== 0) {
      throw new Error(`python RBAC script failed (exit ${String(run.code)}):\n${run.stderr}\n${run.stdout}`);
    }
    output = JSON.parse(run.stdout) as typeof output;
  }, SCRIPT_TIMEOUT_MS + 15_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a RoleBinding to a Role grants exactly its verbs and resources in its namespace', () => {
    expect(output.list).toEqual({ ok: true });
    expect(output.listedNames).toEqual(['settings']);
    expect(output.get).toEqual({ ok: true });
  });

  it('anything else is 403 Forbidden with kube-apiserver’s message', () => {
    const forbidden = (message: string): Outcome => ({
      ok: false,
      status: 403,
      reason: 'Forbidden',
      message,
    });
    expect(output.create).toEqual(
      forbidden(
        'configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team"',
      ),
    );
    expect(output.listSecrets).toEqual(
      forbidden(
        'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "team"',
      ),
    );
    expect(output.getElsewhere).toEqual(
      forbidden(
        'configmaps "settings" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "default"',
      ),
    );
    expect(output.listAllNamespaces).toEqual(
      forbidden(
        'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope',
      ),
    );
    expect(output.patchStatus).toEqual(
      forbidden(
        'namespaces "team" is forbidden: User "alice" cannot patch resource "namespaces/status" in API group "" in the namespace "team"',
      ),
    );
  });
});
