import { dependentFile, e2eTestFile, kindNames, MARKERS, reconcilerFile, resourceFile } from 'create-tosdk';
import { insertBefore, SchematicError } from './tree.js';
import type { SchematicRule, SchematicTree } from './tree.js';

/** Options of the `kind` and `reconciler` schematics (schema.json). */
export interface KindSchematicOptions {
  /** The kind, PascalCase, e.g. `Backup`. */
  name: string;
  /** API group. Defaults to `example.com`. */
  group?: string;
  /** API version. Defaults to `v1`. */
  version?: string;
  /** Source directory. Defaults to `src`. */
  path?: string;
  /** Skip the e2e test. Defaults to false. */
  skipTest?: boolean;
  /** What `nest g ... --no-spec` passes (`false`): skips the e2e test, as {@link skipTest}. Defaults to true. */
  spec?: boolean;
}

function prepare(tree: SchematicTree, o: KindSchematicOptions) {
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(o.name ?? '')) {
    throw new SchematicError(`name "${o.name}" must be a kind such as Backup`);
  }
  const names = kindNames(o.name);
  const src = o.path ?? 'src';
  const options = { group: o.group ?? 'example.com', version: o.version ?? 'v1', names };
  const resource = `${src}/${names.file}.resource.ts`;
  if (tree.exists(resource))
    throw new SchematicError(`${resource} exists: kind ${names.kind} is already declared`);
  return { names, src, options, resource };
}

/** `nest g -c @tosdk/cli kind <Name>`: declares a custom kind (TypeBox schema → type and CRD) and lists it in `kinds.ts`. */
export function kind(o: KindSchematicOptions): SchematicRule {
  return (tree) => {
    const { names, src, options, resource } = prepare(tree, o);
    tree.create(resource, resourceFile(options));
    insertBefore(
      tree,
      `${src}/kinds.ts`,
      MARKERS.kindImports,
      `import { ${names.kind} } from './${names.file}.resource.js';`,
    );
    insertBefore(tree, `${src}/kinds.ts`, MARKERS.kinds, `${names.kind},`);
    return tree;
  };
}

/**
 * `nest g -c @tosdk/cli reconciler <Name>`: a kind, its reconciler with a ConfigMap dependent and an
 * e2e test, wired into the app (`reconcilers.ts`, `kinds.ts`).
 */
export function reconciler(o: KindSchematicOptions): SchematicRule {
  return (tree) => {
    kind(o)(tree);
    const { names, options } = {
      names: kindNames(o.name),
      options: { group: o.group ?? 'example.com', version: o.version ?? 'v1', names: kindNames(o.name) },
    };
    const src = o.path ?? 'src';
    tree.create(`${src}/${names.file}-config-map.dependent.ts`, dependentFile(options));
    tree.create(`${src}/${names.file}.reconciler.ts`, reconcilerFile(options));
    insertBefore(
      tree,
      `${src}/reconcilers.ts`,
      MARKERS.imports,
      `import { ${names.kind}Reconciler } from './${names.file}.reconciler.js';`,
    );
    insertBefore(tree, `${src}/reconcilers.ts`, MARKERS.reconcilers, `${names.kind}Reconciler,`);
    if (!o.skipTest && o.spec !== false) {
      const runner = tree.exists('vitest.config.ts') ? 'vitest' : 'jest';
      tree.create(`test/${names.file}.e2e-spec.ts`, e2eTestFile(options, runner));
    }
    return tree;
  };
}
