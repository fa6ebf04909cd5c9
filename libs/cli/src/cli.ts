import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
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

/**
 * Loads a configuration module (its default export).
 * @throws TosdkCliError `ConfigNotFound` when there is no file; `InvalidConfig` when the module cannot
 * be loaded (a syntax error, a failing import: the message names the file) or its default export is
 * not a configuration (`app.operator` or `app.nestModule` must be a function).
 */
export async function loadConfig(path: string): Promise<TosdkConfig> {
  if (!existsSync(path)) {
    throw new TosdkCliError(
      'ConfigNotFound',
      `no tosdk configuration at ${path}; create tosdk.config.mjs (see the @tosdk/cli README) or pass --config`,
    );
  }
  let module: { default?: TosdkConfig };
  try {
    module = (await import(pathToFileURL(path).href)) as { default?: TosdkConfig };
  } catch (error) {
    // a syntax error or a failing import in the configuration module: name the file, not a stack
    throw new TosdkCliError(
      'InvalidConfig',
      `${path} cannot be loaded: ${(error as Error)?.message || String(error)}`,
      { cause: error },
    );
  }
  const config = module.default as Partial<Record<keyof TosdkConfig, unknown>> | undefined;
  const shape = 'the default export must be defineConfig({ name, namespace, app, output, ... })';
  if (typeof config !== 'object' || config === null) {
    throw new TosdkCliError(
      'InvalidConfig',
      `${path}: ${shape}; it exports none (see the @tosdk/cli README)`,
    );
  }
  // every missing or mistyped setting, by name
  const problems = [
    ...(['name', 'namespace'] as const).map((key) =>
      config[key] === undefined
        ? `${key} is missing`
        : typeof config[key] !== 'string'
          ? `${key} must be a string, got ${JSON.stringify(config[key])}`
          : undefined,
    ),
    config.app === undefined || config.app === null ? 'app is missing' : undefined,
    config.output === undefined
      ? 'output is missing (output: {} writes to the default paths)'
      : typeof config.output !== 'object' || config.output === null
        ? `output must be an object of paths, got ${JSON.stringify(config.output)}`
        : undefined,
  ].filter((p): p is string => p !== undefined);
  if (problems.length > 0) {
    throw new TosdkCliError('InvalidConfig', `${path}: ${shape}: ${problems.join('; ')}`);
  }
  const app = config.app as { operator?: unknown; nestModule?: unknown };
  if (typeof app.operator !== 'function' && typeof app.nestModule !== 'function') {
    throw new TosdkCliError(
      'InvalidConfig',
      `${path}: app must be { operator: () => <an Operator with its controllers registered> } or { nestModule: () => <the Nest module> }, functions the CLI calls`,
    );
  }
  return config as TosdkConfig;
}

/**
 * Runs the command line; returns the exit code (0 ok, also for `--help`/`-h`, which prints the usage;
 * 1 failure; 2 usage: an unknown command, target or option, an extra argument, `--config` without a
 * file). `--config <file>` and `--config=<file>`
 * are both accepted. Messages go to `out`/`err`.
 */
export async function main(
  argv: readonly string[],
  io: { cwd?: string; out?: (s: string) => void; err?: (s: string) => void } = {},
): Promise<number> {
  const out = io.out ?? ((s) => process.stdout.write(`${s}\n`));
  const err = io.err ?? ((s) => process.stderr.write(`${s}\n`));
  const cwd = io.cwd ?? process.cwd();
  const usage = (problem: string) => {
    err(`tosdk: ${problem}\n${USAGE}`);
    return 2;
  };
  let parsed: { values: { check?: boolean; config?: string; help?: boolean }; positionals: string[] };
  try {
    // strict: a misspelt option (--chek) is a usage error rather than silently ignored
    parsed = parseArgs({
      args: [...argv],
      options: {
        check: { type: 'boolean' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    if ((error as { code?: unknown }).code?.toString().startsWith('ERR_PARSE_ARGS')) {
      return usage((error as Error).message);
    }
    throw error;
  }
  // --help (-h), alone or with a command: the usage on stdout, success
  if (parsed.values.help) {
    out(USAGE);
    return 0;
  }
  const check = parsed.values.check ?? false;
  const configArg = parsed.values.config;
  const [command, target, ...extra] = parsed.positionals;
  if (command !== 'generate') return usage(command ? `unknown command ${command}` : 'no command');
  if (!target || !([...TARGETS, 'all'] as string[]).includes(target))
    return usage(target ? `unknown target ${target}` : 'no target');
  if (extra.length) return usage(`unexpected argument${extra.length > 1 ? 's' : ''} ${extra.join(' ')}`);
  if (configArg === '') return usage('--config needs a file');
  try {
    const path = configArg
      ? resolve(cwd, configArg)
      : (['tosdk.config.mjs', 'tosdk.config.js', 'tosdk.config.ts']
          .map((f) => resolve(cwd, f))
          .find((f) => existsSync(f)) ?? resolve(cwd, 'tosdk.config.mjs'));
    const config = await loadConfig(path);
    const result = await generate({ config, baseDir: dirname(path), target: target as Target, check });
    for (const note of result.notes) err(`tosdk: note: ${note}`);
    if (check) out(`tosdk generate ${target} --check: ${Object.keys(result.files).length} files up to date`);
    else {
      const lines = [
        ...result.changed.map((f) => `wrote ${f}`),
        ...result.removed.map((f) => `removed ${f} (no longer generated)`),
      ];
      out(lines.length ? lines.join('\n') : 'everything up to date');
    }
    return 0;
  } catch (error) {
    if (error instanceof TosdkCliError) {
      err(`tosdk: ${error.message}`);
      // the stack of what went wrong underneath, for debugging: DEBUG=1 tosdk generate ...
      const cause = error.cause as Error | undefined;
      if (process.env['DEBUG'] && cause?.stack) err(cause.stack);
    } else {
      err(`tosdk: ${(error as Error).stack ?? String(error)}`);
    }
    return 1;
  }
}
