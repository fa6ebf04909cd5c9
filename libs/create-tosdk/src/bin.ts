#!/usr/bin/env node
import { relative } from 'node:path';
import { createProject, CreateTosdkError } from './create.js';

const USAGE = `Usage: npm create tosdk@latest <name> [-- --kind Greeting --group example.com --jest]

  --kind <Kind>      the example custom resource's kind (default Greeting)
  --group <group>    its API group (default example.com)
  --jest             Jest instead of Vitest for the e2e test
  --tarballs <dir>   depend on tosdk tarballs in <dir> (npm pack output) instead of the registry`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

const args = process.argv.slice(2);
const valued = new Set(['--kind', '--group', '--tarballs']);
const name = args.find((a, i) => !a.startsWith('--') && !valued.has(args[i - 1] ?? ''));
if (!name || args.includes('--help')) {
  console.error(USAGE);
  process.exitCode = name ? 0 : 2;
} else {
  try {
    const dir = await createProject({
      name,
      kind: option(args, '--kind'),
      group: option(args, '--group'),
      testRunner: args.includes('--jest') ? 'jest' : 'vitest',
      tarballs: option(args, '--tarballs'),
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
