import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { kindNames } from './names.js';
import { projectFiles } from './project-templates.js';
import type { ProjectOptions } from './project-templates.js';

/** A bad option or target directory; the message says what to do. */
export class CreateTosdkError extends Error {
  /** Stable error code. */
  readonly code = 'CreateTosdk';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CreateTosdkError';
  }
}

/** Options of {@link createProject}. */
export interface CreateProjectOptions {
  /** Directory (and npm name) of the project, e.g. `my-operator`. */
  name: string;
  /** Where the directory is made. Defaults to the working directory. */
  cwd?: string;
  /** Kind of the example custom resource. Defaults to `Greeting`. */
  kind?: string;
  /** API group. Defaults to `example.com`. */
  group?: string;
  /** API version. Defaults to `v1`. */
  version?: string;
  /** Test runner. Defaults to `vitest` (as Nest 12's scaffold). */
  testRunner?: 'vitest' | 'jest';
  /** A directory of tosdk tarballs (`npm pack` output) to depend on instead of the registry. Defaults to none. */
  tarballs?: string;
}

const TOSDK = ['@tosdk/core', '@tosdk/nestjs', '@tosdk/apiserver', '@tosdk/cli'] as const;

function ownVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function tosdkVersions(tarballs: string | undefined): Pick<ProjectOptions, 'tosdk' | 'overrides'> {
  const range = `^${ownVersion()}`;
  const out = Object.fromEntries(TOSDK.map((p) => [p, range])) as ProjectOptions['tosdk'];
  if (!tarballs) return { tosdk: out };
  const dir = resolve(tarballs);
  const files = existsSync(dir) ? readdirSync(dir) : [];
  const overrides: Record<string, string> = {};
  for (const p of [...TOSDK, 'create-tosdk'] as const) {
    const prefix = `${p.replace('@', '').replace('/', '-')}-`;
    const file = files.find(
      (f) => f.startsWith(prefix) && f.endsWith('.tgz') && /^\d/.test(f.slice(prefix.length)),
    );
    if (!file)
      throw new CreateTosdkError(
        `no tarball of ${p} (${prefix}<version>.tgz) in ${dir}; run npm pack for it there`,
      );
    overrides[p] = `file:${join(dir, file)}`;
    if (p !== 'create-tosdk') out[p] = overrides[p];
  }
  return { tosdk: out, overrides };
}

/** Identifiers the generated modules import or declare beside the kind (a kind named so would not compile). */
const TAKEN = new Set([
  'AppModule',
  'CoreReconciler',
  'CRUDKubernetesDependentResource',
  'CustomResourceDefinition',
  'KINDS',
  'KubeConfig',
  'KubernetesClient',
  'KubernetesResource',
  'Number',
  'OperatorTestingContext',
  'Promise',
  'RECONCILERS',
  'Reconciler',
  'ResourceID',
  'ResourceOf',
  'ResourceType',
  'ResourceTypes',
  'Type',
  'UpdateControl',
  'V1ConfigMap',
]);

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Why Kubernetes or the generated code would refuse the kind, or undefined. */
function kindProblem(kind: string): string | undefined {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) return `kind "${kind}" must be PascalCase, e.g. Greeting`;
  const plural = kindNames(kind).plural;
  if (plural.length > 63) {
    return `kind "${kind}" is too long: its plural ${plural} is ${plural.length} characters, at most 63 (a DNS label); pick a shorter kind`;
  }
  const clash = [kind, `${kind}ConfigMap`, `${kind}Reconciler`].find((n) => TAKEN.has(n));
  if (clash) {
    return `kind "${kind}" would clash with ${clash}, a name the generated code already uses; pick another kind`;
  }
  return undefined;
}

/** Why Kubernetes would refuse a CRD of the group (with the kind's plural), or undefined. */
function groupProblem(group: string, plural: string): string | undefined {
  const labels = group.split('.');
  if (labels.length < 2 || !labels.every((l) => DNS_LABEL.test(l) && l.length <= 63)) {
    return `group "${group}" must be a DNS subdomain with a dot (lower-case labels of at most 63 characters), e.g. example.com`;
  }
  if (plural.length + 1 + group.length > 253) {
    return `group "${group}" is too long: the CRD name ${plural}.${group} must be at most 253 characters`;
  }
  const protectedBy = ['k8s.io', 'kubernetes.io'].find((d) => group === d || group.endsWith(`.${d}`));
  if (protectedBy) {
    return `group "${group}" is protected: Kubernetes accepts CRDs under ${protectedBy} only for its own APIs (with an api-approved.kubernetes.io annotation); use a domain you own, e.g. acme.io`;
  }
  return undefined;
}

/**
 * Lays out a new operator project in `<cwd>/<name>`.
 * @returns the project directory.
 * @throws CreateTosdkError for a bad name, kind, group, version or test runner, or a path that exists
 * and is not an empty directory (one holding only `.git` counts as empty). Nothing is written then.
 */
export async function createProject(options: CreateProjectOptions): Promise<string> {
  const { name } = options;
  if (!DNS_LABEL.test(name)) {
    throw new CreateTosdkError(
      `"${name}" is not a usable project name: lower-case letters, digits and dashes, starting and ending with a letter or digit, e.g. my-operator`,
    );
  }
  if (name.length > 50) {
    throw new CreateTosdkError(
      `"${name}" is ${name.length} characters; a project name has at most 50 (its namespace ${name}-system must fit in 63)`,
    );
  }
  const kind = options.kind ?? 'Greeting';
  const badKind = kindProblem(kind);
  if (badKind) throw new CreateTosdkError(badKind);
  const names = kindNames(kind);
  const group = options.group ?? 'example.com';
  const badGroup = groupProblem(group, names.plural);
  if (badGroup) throw new CreateTosdkError(badGroup);
  const version = options.version ?? 'v1';
  if (!DNS1035_LABEL.test(version) || version.length > 63) {
    throw new CreateTosdkError(
      `version "${version}" must be a lower-case DNS label starting with a letter, e.g. v1 or v1beta1`,
    );
  }
  const testRunner = options.testRunner ?? 'vitest';
  if (testRunner !== 'vitest' && testRunner !== 'jest') {
    throw new CreateTosdkError(`test runner "${String(testRunner)}" is not vitest or jest`);
  }
  const dir = resolve(options.cwd ?? process.cwd(), name);
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) {
      throw new CreateTosdkError(`${dir} exists and is not a directory; pick another name or move it`);
    }
    // a fresh clone of an empty repository holds only .git: lay the project out in it
    if (readdirSync(dir).some((entry) => entry !== '.git')) {
      throw new CreateTosdkError(
        `${dir} exists and is not empty; pick another name, or empty it (a .git directory may stay)`,
      );
    }
  }
  const files = projectFiles({
    name,
    group,
    version,
    names,
    testRunner,
    ...tosdkVersions(options.tarballs),
  });
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return dir;
}
