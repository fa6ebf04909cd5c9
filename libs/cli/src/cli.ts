import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TosdkConfig } from './config.js';
import { TosdkCliError } from './errors.js';
import { generate, TARGETS } from './generate.js';
import type { Target } from './generate.js';

const USAGE = `Usage: tosdk generate <crds|rbac|manifests|helm|webhooks|all> [--config tosdk.config.mjs] [--check]

  crds       CustomResourceDefinitions of the kinds declared with a schema
  rbac       ServiceAccount, (Cluster)Roles and bindings the controllers need
  manifests  Namespace and the operator Deployment (probes, leader election)
  helm       a Helm chart (image, replicas, watchNamespaces, resources)
  webhooks   the webhooks' Service, Validating/MutatingWebhookConfiguration (config.webhooks;
             crds and helm then add the conversion of the CRDs a conversion webhook converts)
  --check    fail when the committed files differ from what would be generated
  --config   the configuration module (default: tosdk.config.mjs, .js or .ts in the working directory)`;

/** Loads a configuration module (its default export). */
export async function loadConfig(path: string): Promise<TosdkConfig> {
  if (!existsSync(path)) {
    throw new TosdkCliError(
      'ConfigNotFound',
      `no tosdk configuration at ${path}; create tosdk.config.mjs (see the @tosdk/cli README) or pass --config`,
    );
  }
  const module = (await import(pathToFileURL(path).href)) as { default?: TosdkConfig };
  const config = module.default;
  if (
    !config ||
    typeof config.name !== 'string' ||
    typeof config.namespace !== 'string' ||
    !config.app ||
    !config.output
  ) {
    throw new TosdkCliError(
      'InvalidConfig',
      `${path}: the default export must be defineConfig({ name, namespace, app, output, ... })`,
    );
  }
  return config;
}

/**
 * Runs the command line; returns the exit code (0 ok, 1 failure, 2 usage). Messages go to `out`/`err`.
 */
export async function main(
  argv: readonly string[],
  io: { cwd?: string; out?: (s: string) => void; err?: (s: string) => void } = {},
): Promise<number> {
  const out = io.out ?? ((s) => process.stdout.write(`${s}\n`));
  const err = io.err ?? ((s) => process.stderr.write(`${s}\n`));
  const cwd = io.cwd ?? process.cwd();
  const args = [...argv];
  const check = args.includes('--check');
  const configAt = args.indexOf('--config');
  const configArg = configAt >= 0 ? args[configAt + 1] : undefined;
  const positional = args.filter((a, i) => !a.startsWith('--') && (configAt < 0 || i !== configAt + 1));
  const [command, target] = positional;
  if (
    command !== 'generate' ||
    !target ||
    !([...TARGETS, 'all'] as string[]).includes(target) ||
    (configAt >= 0 && !configArg)
  ) {
    err(USAGE);
    return 2;
  }
  try {
    const path = configArg
      ? resolve(cwd, configArg)
      : (['tosdk.config.mjs', 'tosdk.config.js', 'tosdk.config.ts']
          .map((f) => resolve(cwd, f))
          .find((f) => existsSync(f)) ?? resolve(cwd, 'tosdk.config.mjs'));
    const config = await loadConfig(path);
    const result = await generate({ config, baseDir: dirname(path), target: target as Target, check });
    if (check) out(`tosdk generate ${target} --check: ${Object.keys(result.files).length} files up to date`);
    else
      out(
        result.changed.length ? result.changed.map((f) => `wrote ${f}`).join('\n') : 'everything up to date',
      );
    return 0;
  } catch (error) {
    err(
      error instanceof TosdkCliError
        ? `tosdk: ${error.message}`
        : `tosdk: ${(error as Error).stack ?? String(error)}`,
    );
    return 1;
  }
}
