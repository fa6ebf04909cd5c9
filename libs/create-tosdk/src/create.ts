import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * Lays out a new operator project in `<cwd>/<name>`.
 * @returns the project directory.
 * @throws CreateTosdkError for a bad name, kind or test runner, or a directory that exists and is not empty.
 */
export async function createProject(options: CreateProjectOptions): Promise<string> {
  const { name } = options;
  if (!/^[a-z0-9][a-z0-9-]*[a-z0-9]$/.test(name) || name.length > 50) {
    throw new CreateTosdkError(
      `"${name}" is not a usable project name: lower-case letters, digits and dashes, e.g. my-operator`,
    );
  }
  const kind = options.kind ?? 'Greeting';
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind))
    throw new CreateTosdkError(`kind "${kind}" must be PascalCase, e.g. Greeting`);
  const group = options.group ?? 'example.com';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(group)) {
    throw new CreateTosdkError(`group "${group}" must be a DNS subdomain with a dot, e.g. example.com`);
  }
  const testRunner = options.testRunner ?? 'vitest';
  if (testRunner !== 'vitest' && testRunner !== 'jest') {
    throw new CreateTosdkError(`test runner "${String(testRunner)}" is not vitest or jest`);
  }
  const dir = resolve(options.cwd ?? process.cwd(), name);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new CreateTosdkError(`${dir} exists and is not empty; pick another name or remove it`);
  }
  const files = projectFiles({
    name,
    group,
    version: options.version ?? 'v1',
    names: kindNames(kind),
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
