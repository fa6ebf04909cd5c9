#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { createProject, CreateTosdkError } from './create.js';

const USAGE = `Usage: npm create tosdk@latest <name> [-- --kind Greeting --group example.com --jest]

  <name>             directory and npm name: lower-case letters, digits and dashes (at most 50)
  --kind <Kind>      the example custom resource's kind (default Greeting)
  --group <group>    its API group (default example.com)
  --jest             Jest instead of Vitest for the e2e test
  --tarballs <dir>   depend on tosdk tarballs in <dir> (npm pack output) instead of the registry
  -h, --help         this text

Options take their value as --kind Backup or --kind=Backup.`;

/** What the command line asks for, or the usage error to report (exit 2). */
type Parsed =
  | { help: true }
  | { error: string }
  | { name?: string; kind?: string; group?: string; tarballs?: string; jest: boolean };

const VALUED = { '--kind': 'kind', '--group': 'group', '--tarballs': 'tarballs' } as const;

function parse(args: string[]): Parsed {
  const positionals: string[] = [];
  const values: Partial<Record<(typeof VALUED)[keyof typeof VALUED], string>> = {};
  let jest = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    // `npx create-tosdk my-op -- --jest`: npm create passes what follows its own `--`; accept both
    if (arg === '--') continue;
    if (arg === '-h' || arg === '--help') return { help: true };
    if (!arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (flag in VALUED) {
      const value = eq > 0 ? arg.slice(eq + 1) : args[i + 1];
      if (value === undefined || value === '' || (eq < 0 && value.startsWith('-'))) {
        return {
          error: `${flag} needs a value, e.g. ${flag} ${flag === '--kind' ? 'Backup' : flag === '--group' ? 'acme.io' : 'packs'}`,
        };
      }
      if (eq < 0) i++;
      values[VALUED[flag as keyof typeof VALUED]] = value;
    } else if (arg === '--jest') {
      jest = true;
    } else {
      return { error: `unknown option ${arg}` };
    }
  }
  if (positionals.length > 1) {
    return {
      error: `one project name expected, got ${positionals.map((p) => `"${p}"`).join(' and ')} (options start with --, e.g. --kind Backup)`,
    };
  }
  return { name: positionals[0], ...values, jest };
}

/**
 * Why this Node cannot run the project, or undefined: npm only warns (EBADENGINE) when the engines
 * field is not met, and the project's dependencies then fail far from the cause.
 */
function nodeProblem(): string | undefined {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    engines?: { node?: string };
  };
  const wanted = /^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(pkg.engines?.node ?? '');
  if (!wanted) return undefined;
  const have = process.versions.node.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const want = Number(wanted[i + 1]);
    if ((have[i] ?? 0) > want) return undefined;
    if ((have[i] ?? 0) < want) {
      const min = wanted.slice(1).join('.');
      return `the project needs Node.js ${min} or later (its engines, and tosdk's), this is ${process.versions.node}; install a newer Node.js (e.g. nvm install 24) and run npm create tosdk again`;
    }
  }
  return undefined;
}

const parsed = parse(process.argv.slice(2));
const oldNode = 'help' in parsed || 'error' in parsed ? undefined : nodeProblem();
if ('help' in parsed) {
  console.log(USAGE);
} else if ('error' in parsed) {
  console.error(`create-tosdk: ${parsed.error} (see --help)`);
  process.exitCode = 2;
} else if (oldNode) {
  console.error(`create-tosdk: ${oldNode}`);
  process.exitCode = 1;
} else if (!parsed.name) {
  console.error(USAGE);
  process.exitCode = 2;
} else {
  try {
    const dir = await createProject({
      name: parsed.name,
      kind: parsed.kind,
      group: parsed.group,
      testRunner: parsed.jest ? 'jest' : 'vitest',
      tarballs: parsed.tarballs,
    });
    const where = relative(process.cwd(), dir) || '.';
    console.log(
      `Created ${where}. Next:\n\n  cd ${where}\n  npm install\n  npm start        # against an embedded API server\n  npm test\n  npm run generate # deploy/ and chart/ from the code; commit them\n`,
    );
  } catch (error) {
    console.error(error instanceof CreateTosdkError ? `create-tosdk: ${error.message}` : error);
    process.exitCode = 1;
  }
}
