// The repository's import rules (DEVELOPERS.md, "Technical ground rules"), checked on every
// `npm run lint` and by test/import-rules.e2e-spec.ts:
// 1. no import cycles among a package's or an app's TypeScript files, type-only imports included
//    (a cycle of type imports still makes the files' order of loading and reading matter);
// 2. @tosdk/core's sources import neither Nest, pino, prom-client nor the API server (its tests
//    may use @tosdk/apiserver);
// 3. a package or an app reaches another one only through its package name, never by a relative
//    path out of its own folder (what is published is what is imported).
// Imports are read with TypeScript's parser, so an example in a comment is not an import.
//
//   node scripts/check-imports.mjs [ROOT]   exits 1 and names each file and import at fault
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Packages @tosdk/core's own sources must not import (a prefix ending in `/` matches a scope). */
const CORE_FORBIDDEN = [
  '@nestjs/',
  'nestjs-pino',
  'pino',
  'pino-',
  'prom-client',
  '@willsoto/',
  '@tosdk/apiserver',
  '@tosdk/nestjs',
];
/** Of those, what core's tests may import (they run against the in-memory API server). */
const CORE_TESTS_ALLOWED = ['@tosdk/apiserver'];

const isTest = (file) => /(^|[/\\])__tests__[/\\]|\.(spec|e2e-spec)\.ts$/.test(file);

function sourceFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|mts|cts)$/.test(name) && !/\.d\.[mc]?ts$/.test(name)) out.push(path);
    }
  };
  walk(dir);
  return out;
}

/**
 * The module specifiers a file names: static imports and re-exports (`static`, with whether they
 * are type-only) and dynamic `import()` calls and `import('x')` types (`dynamic`).
 */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found = [];
  const lineOf = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ specifier: node.moduleSpecifier.text, kind: 'static', line: lineOf(node) });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push({ specifier: node.moduleReference.expression.text, kind: 'static', line: lineOf(node) });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length > 0 &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, kind: 'dynamic', line: lineOf(node) });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ specifier: node.argument.literal.text, kind: 'dynamic', line: lineOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The file a relative specifier names (NodeNext writes `.js` for a `.ts` file), if it exists. */
function resolveRelative(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    base.replace(/\.cjs$/, '.cts'),
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** Strongly connected groups of more than one file (or a file importing itself): the cycles. */
function cyclesOf(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  // iterative Tarjan: the graphs are small, but a recursion per import chain is not needed
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const edges = graph.get(top.node) ?? [];
      if (top.edge < edges.length) {
        const to = edges[top.edge++];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node), index.get(to)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent), low.get(top.node)));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const group = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          group.push(member);
        } while (member !== top.node);
        if (group.length > 1 || edges.includes(top.node)) cycles.push(group);
      }
    }
  }
  return cycles;
}

/**
 * A shortest cycle through the group's first file (by name), in import order: every file in it
 * imports the next, and the last imports the first.
 */
function cyclePath(group, graph) {
  const members = new Set(group);
  const first = [...group].sort()[0];
  const parent = new Map([[first, undefined]]);
  const queue = [first];
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i];
    for (const to of graph.get(at) ?? []) {
      if (!members.has(to)) continue;
      if (to === first) {
        const path = [];
        for (let f = at; f !== undefined; f = parent.get(f)) path.unshift(f);
        return path;
      }
      if (!parent.has(to)) {
        parent.set(to, at);
        queue.push(to);
      }
    }
  }
  return [first]; // not reached: every file of a group reaches every other
}

/**
 * Every breach of the import rules under `root` (a checkout of this repository or a tree shaped
 * like it: `libs/<name>/` and `apps/<name>/`), each a sentence naming the file and what to do.
 */
export function findImportProblems(root) {
  const problems = [];
  const units = [];
  for (const group of ['libs', 'apps']) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const unit = join(dir, name);
      if (statSync(unit).isDirectory()) units.push({ dir: unit, label: `${group}/${name}` });
    }
  }
  for (const unit of units) {
    const files = sourceFiles(unit.dir);
    const graph = new Map();
    for (const file of files) {
      const shown = relative(root, file).split(sep).join('/');
      const edges = [];
      for (const imp of importsOf(file)) {
        const { specifier, kind, line } = imp;
        if (specifier.startsWith('.')) {
          const target = resolveRelative(file, specifier);
          if (target === undefined) continue; // the compiler reports a missing file
          const outside = relative(unit.dir, target).startsWith('..');
          if (outside) {
            problems.push(
              `${shown}:${line} imports '${specifier}', outside ${unit.label}: import another package by its name (@tosdk/...), as its users do`,
            );
          } else if (kind === 'static') edges.push(target);
          continue;
        }
        if (unit.label === 'libs/core') {
          const hit = CORE_FORBIDDEN.find((p) =>
            p.endsWith('/') || p.endsWith('-')
              ? specifier.startsWith(p)
              : specifier === p || specifier.startsWith(`${p}/`),
          );
          if (hit && !(isTest(file) && CORE_TESTS_ALLOWED.includes(hit))) {
            problems.push(
              `${shown}:${line} imports '${specifier}': @tosdk/core must not depend on Nest, pino, prom-client or the API server; take it through an interface core defines (Logger, Metrics) and implement it in @tosdk/nestjs`,
            );
          }
        }
      }
      graph.set(file, edges);
    }
    for (const group of cyclesOf(graph)) {
      const path = cyclePath(group, graph).map((f) => relative(root, f).split(sep).join('/'));
      problems.push(
        `import cycle in ${unit.label} (${group.length} file${group.length === 1 ? '' : 's'}): ${[...path, path[0]].join(' -> ')}; move what both sides need into a module of its own, or turn one import around`,
      );
    }
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const problems = findImportProblems(root);
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`check-imports: ${problems.length} problem(s) under ${root}`);
    process.exitCode = 1;
  } else console.log(`check-imports: no import cycles, core imports only what it may, packages meet by name`);
}
