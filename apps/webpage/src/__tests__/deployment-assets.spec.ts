// The image and manifests are checked statically here (there is no Docker engine in CI); the
// manifests are applied to an API server in test/webpage-deploy.e2e-spec.ts.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { V1Container, V1Deployment } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

const app = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const repo = (path: string) => fileURLToPath(new URL(`../../../../${path}`, import.meta.url));

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

/** Dockerfile instructions by stage (line continuations joined, comments dropped). */
function parseDockerfile(text: string): { args: Instruction[]; stages: Stage[] } {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const args: Instruction[] = [];
  const stages: Stage[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(\w+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`not an instruction: ${line}`);
    const op = m[1].toUpperCase();
    const rest = m[2].trim();
    if (op === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!from) throw new Error(`bad FROM: ${line}`);
      stages.push({ from: from[1], name: from[2] ?? String(stages.length), instructions: [] });
    } else if (stages.length === 0) {
      args.push({ op, args: rest });
    } else {
      stages.at(-1)!.instructions.push({ op, args: rest });
    }
  }
  return { args, stages };
}

const dockerfile = parseDockerfile(readFileSync(app('Dockerfile'), 'utf8'));
const stage = (name: string) => dockerfile.stages.find((s) => s.name === name)!;
const all = (s: Stage, op: string) => s.instructions.filter((i) => i.op === op);

describe('apps/webpage/Dockerfile', () => {
  it('has the build, prod-deps and runtime stages, all on Node 24', () => {
    expect(dockerfile.stages.map((s) => s.name)).toEqual(['build', 'prod-deps', 'runtime']);
    const nodeImage = dockerfile.args.find((a) => a.op === 'ARG' && a.args.startsWith('NODE_IMAGE='));
    expect(nodeImage?.args).toMatch(/^NODE_IMAGE=node:24[-.\w]*$/);
    for (const s of dockerfile.stages) expect(s.from).toBe('${NODE_IMAGE}');
  });

  it('builds with every dependency but installs production dependencies only for the runtime', () => {
    expect(all(stage('build'), 'RUN').map((r) => r.args)).toEqual([
      expect.stringMatching(/^npm ci\b/),
      expect.stringContaining('tsc -b apps/webpage/tsconfig.build.json'),
    ]);
    const install = all(stage('prod-deps'), 'RUN');
    expect(install).toHaveLength(1);
    expect(install[0].args).toMatch(/^npm ci\b/);
    expect(install[0].args).toContain('--omit=dev');
    expect(install[0].args).toContain('--workspace=@tosdk/sample-webpage');
    // the runtime takes its dependencies from prod-deps only, and nothing but compiled output from build
    const copies = all(stage('runtime'), 'COPY');
    for (const c of copies) expect(c.args).toMatch(/^--from=(build|prod-deps) /);
    expect(copies.filter((c) => c.args.startsWith('--from=prod-deps')).map((c) => c.args)).toEqual([
      '--from=prod-deps /app/ ./',
    ]);
    for (const c of copies.filter((c) => c.args.startsWith('--from=build'))) {
      expect(c.args).toMatch(/(\/dist\/|webpage-crd\.yaml|examples\/) /);
    }
    expect(all(stage('runtime'), 'RUN')).toEqual([]);
  });

  it('runs the compiled main as a non-root user', () => {
    const runtime = stage('runtime');
    const user = all(runtime, 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    const [uid] = user!.split(':');
    expect(uid).toMatch(/^\d+$/); // numeric, so the kubelet can check runAsNonRoot
    expect(Number(uid)).toBeGreaterThan(0);
    expect(all(runtime, 'CMD').at(-1)?.args).toBe('["node", "apps/webpage/dist/main.js"]');
    expect(
      all(runtime, 'ENV')
        .map((e) => e.args)
        .join(' '),
    ).toContain('NODE_ENV=production');
  });

  it('copies only files that exist in the build context', () => {
    for (const s of dockerfile.stages) {
      for (const c of all(s, 'COPY').filter((c) => !c.args.startsWith('--from'))) {
        const sources = c.args.split(/\s+/).slice(0, -1);
        for (const source of sources) expect([source, existsSync(repo(source))]).toEqual([source, true]);
      }
    }
  });
});

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const lockPackages = Object.keys(
  (JSON.parse(readFileSync(repo('package-lock.json'), 'utf8')) as { packages: Record<string, unknown> })
    .packages,
);
/** The workspace folders the lock file lists (`libs/core`, `apps/webpage`, ...). */
const workspaceDirs = lockPackages.filter((k) => k !== '' && !k.includes('node_modules/'));
const workspaceManifests = new Map(
  workspaceDirs.map((dir) => [
    dir,
    JSON.parse(readFileSync(repo(`${dir}/package.json`), 'utf8')) as Manifest,
  ]),
);
const nameOf = (dir: string) => workspaceManifests.get(dir)!.name;

/**
 * Workspace folders reachable from `dir` (itself included) through the given kinds of dependency,
 * followed from every workspace reached.
 */
function workspaceClosure(dir: string, kinds: Array<keyof Manifest>): Set<string> {
  const reached = new Set([dir]);
  for (const current of reached) {
    const manifest = workspaceManifests.get(current)!;
    for (const kind of kinds) {
      for (const dep of Object.keys((manifest[kind] as Record<string, string> | undefined) ?? {})) {
        const target = workspaceDirs.find((d) => nameOf(d) === dep);
        if (target) reached.add(target);
      }
    }
  }
  return reached;
}

/** The paths an `rm` in a RUN instruction removes. */
const removedBy = (run: string) =>
  run
    .split('&&')
    .map((part) => part.trim().split(/\s+/))
    .filter((words) => words[0] === 'rm')
    .flatMap((words) => words.slice(1).filter((w) => !w.startsWith('-')));

// An image's `npm ci` needs the manifest of every workspace the lock file lists; `npm ci -w <app>
// --omit=dev` still links the workspaces the app (or a workspace it reaches) lists as devDependencies;
// and the lock file may nest a dependency under a workspace (libs/core/node_modules/lru-cache), which
// the runtime needs as much as the hoisted ones.
describe.each(['webpage', 'mysql-schema', 'tomcat'])(
  'apps/%s/Dockerfile and the workspaces of the lock file',
  (name) => {
    const appDir = `apps/${name}`;
    const image = parseDockerfile(readFileSync(repo(`${appDir}/Dockerfile`), 'utf8'));
    const stageOf = (stageName: string) => image.stages.find((s) => s.name === stageName)!;
    const production = workspaceClosure(appDir, ['dependencies', 'peerDependencies']);
    const linked = workspaceClosure(appDir, ['dependencies', 'peerDependencies', 'devDependencies']);

    it('has a workspace in the lock file for the app and at least one outside its production closure', () => {
      expect(workspaceDirs).toContain(appDir);
      expect(workspaceDirs.filter((d) => !production.has(d)).length).toBeGreaterThan(0);
    });

    it('copies only files that exist in the build context', () => {
      for (const s of image.stages) {
        for (const c of all(s, 'COPY').filter((c) => !c.args.startsWith('--from'))) {
          for (const source of c.args.split(/\s+/).slice(0, -1)) {
            expect([source, existsSync(repo(source))]).toEqual([source, true]);
          }
        }
      }
    });

    it('copies the manifest of every workspace the lock file lists before each npm ci', () => {
      const installs = image.stages.filter((s) => all(s, 'RUN').some((r) => r.args.startsWith('npm ci')));
      expect(installs.map((s) => s.name)).toEqual(['build', 'prod-deps']);
      for (const s of installs) {
        const before = s.instructions.slice(
          0,
          s.instructions.findIndex((i) => i.op === 'RUN' && i.args.startsWith('npm ci')),
        );
        const copied = before
          .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))
          .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
        for (const file of [
          'package.json',
          'package-lock.json',
          ...workspaceDirs.map((d) => `${d}/package.json`),
        ]) {
          expect([s.name, file, copied.includes(file)]).toEqual([s.name, file, true]);
        }
      }
    });

    it('installs the production closure of the app only and removes every other workspace and link', () => {
      const run = all(stageOf('prod-deps'), 'RUN');
      expect(run).toHaveLength(1);
      expect(run[0].args).toMatch(new RegExp(`^npm ci .*--omit=dev .*--workspace=${nameOf(appDir)} `));
      const removed = removedBy(run[0].args);
      const expected = [
        ...workspaceDirs.filter((d) => !production.has(d)),
        ...[...linked].filter((d) => !production.has(d)).map((d) => `node_modules/${nameOf(d)}`),
      ];
      expect([...removed].sort()).toEqual(expected.sort());
    });

    it('builds and ships the compiled output of the production closure and its nested node_modules', () => {
      const sources = (s: Stage, from?: string) =>
        all(s, 'COPY')
          .filter((c) => (from ? c.args.startsWith(`--from=${from} `) : !c.args.startsWith('--from')))
          .flatMap((c) => c.args.split(/\s+/).slice(from ? 1 : 0, -1));
      const runtime = stageOf('runtime');
      for (const dir of production) {
        expect(sources(stageOf('build'))).toContain(`${dir}/`);
        expect(sources(runtime, 'build')).toContain(`/src/${dir}/dist/`);
      }
      for (const source of sources(runtime, 'build')) {
        expect([source, [...production].some((d) => source.startsWith(`/src/${d}/`))]).toEqual([
          source,
          true,
        ]);
      }
      // everything npm ci installed, nested node_modules included
      const fromDeps = sources(runtime, 'prod-deps');
      const nested = lockPackages.filter((k) =>
        [...production].some((d) => k.startsWith(`${d}/node_modules/`)),
      );
      for (const path of ['node_modules/', ...nested]) {
        expect([path, fromDeps.some((src) => `/app/${path}`.startsWith(src))]).toEqual([path, true]);
      }
    });
  },
);

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [key: string]: unknown;
}
const manifests = (file: string): K8sObject[] =>
  parseAllDocuments(readFileSync(app(`deploy/${file}`), 'utf8')).map((d) => d.toJS() as K8sObject);

describe('apps/webpage/deploy manifests', () => {
  const deployment = manifests('operator.yaml').find(
    (o) => o.kind === 'Deployment',
  ) as unknown as V1Deployment;
  const pod = deployment.spec!.template.spec!;
  const container: V1Container = pod.containers[0];

  it('probes liveness and readiness on the health endpoints of the HTTP port the app listens on', () => {
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/health/liveness', port: 'http' });
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/readiness', port: 'http' });
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    expect(container.ports).toEqual([{ name: 'http', containerPort: Number(env['WEBPAGE_HTTP_PORT']) }]);
    expect(env['WEBPAGE_HTTP_HOST']).toBe('0.0.0.0');
    expect(env['WEBPAGE_LEADER_ELECTION']).toBe('true');
  });

  it('runs as the non-root user of the image under the least-privilege ServiceAccount', () => {
    const uid = all(stage('runtime'), 'USER').at(-1)!.args.split(':')[0];
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: Number(uid) });
    const rbac = manifests('rbac.yaml');
    const sa = rbac.find((o) => o.kind === 'ServiceAccount')!;
    expect(pod.serviceAccountName).toBe(sa.metadata.name);
    for (const binding of rbac.filter((o) => o.kind.endsWith('Binding'))) {
      expect(binding['subjects']).toEqual([
        { kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace },
      ]);
    }
  });

  it('grants no wildcard and nothing on secrets', () => {
    for (const role of manifests('rbac.yaml').filter((o) => o.kind.endsWith('Role'))) {
      for (const rule of role['rules'] as Array<{
        verbs: string[];
        resources: string[];
        apiGroups: string[];
      }>) {
        for (const list of [rule.verbs, rule.resources, rule.apiGroups]) expect(list).not.toContain('*');
        expect(rule.resources).not.toContain('secrets');
      }
    }
  });
});
