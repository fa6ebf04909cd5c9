import type { KindNames } from './names.js';

/** What the kind templates need. */
export interface KindTemplateOptions {
  /** API group, e.g. `example.com`. */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** The kind's names. */
  names: KindNames;
}

/** `src/<kind>.resource.ts`: the kind declared once (TypeBox schema → type and CRD). */
export function resourceFile({ group, version, names }: KindTemplateOptions): string {
  return `import { Type } from '@sinclair/typebox';
import { defineResource } from '@tosdk/core';
import type { ResourceOf } from '@tosdk/core';

/**
 * The \`${names.kind}\` kind, declared once: its TypeScript type (below) and its CRD
 * (\`npm run generate\` → deploy/crds.yaml) both come from this value, so they cannot disagree.
 * Kubernetes' schema rules apply; \`K8s.*\` from @tosdk/core adds int-or-string, list maps, CEL rules...
 */
export const ${names.kind} = defineResource({
  group: '${group}',
  version: '${version}',
  kind: '${names.kind}',
  schema: {
    description: 'A ${names.kind}: its message is rendered into a ConfigMap of the same name.',
    spec: Type.Object({
      message: Type.String({ minLength: 1, description: 'Who or what to greet.' }),
    }),
    status: Type.Object({
      configMap: Type.Optional(Type.String({ description: 'The ConfigMap holding the rendered message.' })),
      observedGeneration: Type.Optional(
        Type.Integer({ format: 'int64', description: 'The generation this status describes.' }),
      ),
    }),
  },
  printerColumns: [
    { name: 'ConfigMap', type: 'string', jsonPath: '.status.configMap' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});

/** A \`${names.kind}\` object. */
export type ${names.kind} = ResourceOf<typeof ${names.kind}>;
`;
}

/** `src/<kind>-config-map.dependent.ts`: the dependent the reconciler manages. */
export function dependentFile({ names }: KindTemplateOptions): string {
  return `import type { V1ConfigMap } from '@kubernetes/client-node';
import { CRUDKubernetesDependentResource, ResourceID, ResourceTypes } from '@tosdk/core';
import type { ${names.kind} } from './${names.file}.resource.js';

/**
 * The ConfigMap of a ${names.kind}: created and kept up to date with server-side apply, deleted with
 * its ${names.kind} by garbage collection (owner reference).
 */
export class ${names.kind}ConfigMap extends CRUDKubernetesDependentResource<V1ConfigMap, ${names.kind}> {
  constructor() {
    super({ name: '${names.file}-configmap', resourceType: ResourceTypes.ConfigMap });
  }

  protected override targetSecondaryResourceID(primary: ${names.kind}): ResourceID {
    return new ResourceID(primary.metadata!.name!, primary.metadata!.namespace);
  }

  protected override desired(primary: ${names.kind}): V1ConfigMap {
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: primary.metadata!.name!, namespace: primary.metadata!.namespace },
      data: { message: \`Hello, \${primary.spec!.message}!\` },
    };
  }
}
`;
}

/** `src/<kind>.reconciler.ts`: the reconciler with its managed dependent. */
export function reconcilerFile({ names }: KindTemplateOptions): string {
  return `import { UpdateControl } from '@tosdk/core';
import type { Reconciler as CoreReconciler } from '@tosdk/core';
import { Reconciler } from '@tosdk/nestjs';
import { ${names.kind}ConfigMap } from './${names.file}-config-map.dependent.js';
import { ${names.kind} } from './${names.file}.resource.js';

/**
 * Reconciles ${names.kind} objects: the workflow applies the ConfigMap dependent first, then the
 * status reports it. \`npm run generate\` derives the RBAC from this configuration.
 */
@Reconciler({
  resource: ${names.kind},
  workflow: { dependents: [{ dependent: ${names.kind}ConfigMap }] },
})
export class ${names.kind}Reconciler implements CoreReconciler<${names.kind}> {
  reconcile(primary: ${names.kind}): UpdateControl<${names.kind}> {
    return UpdateControl.patchStatus<${names.kind}>({
      apiVersion: primary.apiVersion,
      kind: primary.kind,
      metadata: { name: primary.metadata!.name!, namespace: primary.metadata!.namespace },
      status: { configMap: primary.metadata!.name!, observedGeneration: primary.metadata?.generation },
    });
  }
}
`;
}

/** `test/<kind>.e2e-spec.ts`: the reconciler against the in-memory API server. */
export function e2eTestFile({ names }: KindTemplateOptions, runner: 'vitest' | 'jest'): string {
  const globals =
    runner === 'vitest'
      ? "import { afterAll, beforeAll, describe, expect, it } from 'vitest';\n"
      : "import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';\n";
  return `import 'reflect-metadata';
${globals}import { customResourceDefinitions, ResourceTypes } from '@tosdk/core';
import { createOperatorTestingModule } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { AppModule } from '../src/app.module.js';
import { KINDS } from '../src/kinds.js';
import { ${names.kind} } from '../src/${names.file}.resource.js';

describe('${names.kind} operator (e2e)', () => {
  let t: OperatorTestingContext;

  beforeAll(async () => {
    t = await createOperatorTestingModule({
      imports: [AppModule.forRoot({ logLevel: 'warn' })],
      crds: customResourceDefinitions(KINDS),
      http: true,
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  }, 60_000);

  it('renders the ConfigMap and reports it in the status', async () => {
    await t.adminClient.create(${names.kind}, {
      apiVersion: ${names.kind}.apiVersion,
      kind: ${names.kind}.kind,
      metadata: { name: 'world', namespace: t.namespace },
      spec: { message: 'world' },
    });
    const configMap = await t.waitForResource(ResourceTypes.ConfigMap, 'world', undefined, { timeoutMs: 30_000 });
    expect(configMap.data?.['message']).toBe('Hello, world!');
    const done = await t.waitForResource(${names.kind}, 'world', (o) => o.status?.configMap === 'world', {
      timeoutMs: 30_000,
    });
    expect(done.status?.observedGeneration).toBe(1);
    expect((await fetch(\`\${t.url}/health/readiness\`)).status).toBe(200);
  }, 90_000);

  it('the API server rejects an empty message (the schema is the CRD)', async () => {
    const refused = await t.adminClient
      .create(${names.kind}, {
        apiVersion: ${names.kind}.apiVersion,
        kind: ${names.kind}.kind,
        metadata: { name: 'empty', namespace: t.namespace },
        spec: { message: '' },
      })
      .then(
        () => 'created',
        (e: unknown) => (e as { status?: number }).status,
      );
    expect(refused).toBe(422);
  });
});
`;
}
