import 'reflect-metadata';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Module } from '@nestjs/common';
import { OperatorModule, OperatorRegistry, Reconciler } from '../../index.js';
import { defineResource, KubernetesClient, ResourceID, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { KubernetesResource } from '@tosdk/core';
import {
  applyCrds,
  createOperatorTestingModule,
  CustomResourceDefinitionType,
  loadCrds,
  OperatorTestEnvironment,
  waitFor,
} from '../index.js';
import type { OperatorTestingContext } from '../index.js';

@Module({})
class EmptyFeature {}

@Reconciler({ resource: ResourceTypes.ConfigMap, name: 's14-maps' })
class MapsReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

const Widget = defineResource<KubernetesResource>({
  group: 'unserved.s14.example.com',
  version: 'v1',
  kind: 'Widget',
});

@Reconciler({ resource: Widget, name: 's14-widgets' })
class WidgetReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

@Module({
  // closeClientOnStop: false as for a client the app owns: the app's shutdown leaves it open
  imports: [OperatorModule.forRoot({ readEnvironment: false, closeClientOnStop: false })],
  providers: [WidgetReconciler],
})
class UnservedApp {}

/** Names of the Namespaces the cluster-scoped controller reconciled. */
const seenNamespaces = new Set<string>();

@Reconciler({ resource: ResourceTypes.Namespace, name: 's14-namespaces' })
class NamespacesReconciler {
  reconcile(namespace: KubernetesResource) {
    seenNamespaces.add(namespace.metadata!.name!);
    return UpdateControl.noUpdate();
  }
}

@Module({ imports: [OperatorModule.forRoot({ readEnvironment: false })], providers: [NamespacesReconciler] })
class NamespacesApp {}

/** The client retries the app's operator reported to its metrics. */
const clientRetries: string[] = [];

@Module({
  imports: [
    OperatorModule.forRoot({
      readEnvironment: false,
      metrics: { clientRetry: (verb: string) => void clientRetries.push(verb) },
    }),
  ],
  providers: [MapsReconciler],
})
class RetryCountingApp {}

/** A minimal namespaced CRD of the group s14.example.com. */
const crdObject = (plural: string, kind: string): KubernetesResource & { spec: object } => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.s14.example.com` },
  spec: {
    group: 's14.example.com',
    names: { kind, plural },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
});

/** Settles `promise` as its outcome text, or says it was still pending after `ms` (the guard timer is unref'd). */
function outcomeWithin(promise: Promise<unknown>, ms: number): Promise<string> {
  return Promise.race([
    promise.then(
      (value) => `resolved ${String(value)}`,
      (error: unknown) => `rejected ${(error as Error).message}`,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve(`still pending after ${ms} ms`), ms).unref()),
  ]);
}

describe('review S14: @tosdk/nestjs/testing', () => {
  let environment: OperatorTestEnvironment;
  let dir: string;
  beforeAll(async () => {
    environment = await OperatorTestEnvironment.start({ environment: {} });
    dir = await mkdtemp(join(tmpdir(), 'tosdk-s14-'));
  }, 60_000);
  afterAll(async () => {
    await environment?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('[FINDING S14-TS1] waitFor with timeoutMs: Infinity (the runner decides) returns once the check holds, and a NaN timeout is refused, instead of polling forever', async () => {
    // a check that takes a little while, as a request to the API server does
    const slow = async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return 'ready';
    };
    expect(await outcomeWithin(waitFor(slow, { timeoutMs: Number.POSITIVE_INFINITY }), 3_000)).toBe(
      'resolved ready',
    );
    // e.g. Number(process.env.WAIT_MS) with the variable unset
    expect(
      await outcomeWithin(
        waitFor(() => false, { timeoutMs: Number('unset') }),
        3_000,
      ),
    ).toMatch(/^rejected waitFor: timeoutMs must be a number >= 0 \(Infinity for no limit\), got NaN/);
  });
});

describe('review S14: what a failed wait reports', () => {
  let environment: OperatorTestEnvironment;
  let namespace: string;
  beforeAll(async () => {
    environment = await OperatorTestEnvironment.start({ environment: {} });
    namespace = await environment.createNamespace();
  }, 60_000);
  afterAll(async () => {
    await environment?.stop();
  });

  it('[FINDING S14-TS2] a wait whose every read is refused reports the refusal as its last error, instead of "the last check had not settled"', async () => {
    environment.server!.faults.failNext({
      verb: 'get',
      resource: 'configmaps',
      code: 403,
      times: 10_000,
      message: 'configmaps "locked" is forbidden: User "admin" cannot get resource "configmaps"',
    });
    try {
      const wait = environment.waitForResource(
        ResourceTypes.ConfigMap,
        new ResourceID('locked', namespace),
        undefined,
        {
          timeoutMs: 300,
        },
      );
      await expect(wait).rejects.toMatchObject({ code: 'WaitForTimeout' });
      await expect(wait).rejects.toThrow(/; last error: 403 Forbidden: configmaps "locked" is forbidden/);
    } finally {
      environment.server!.faults.clear();
    }
  });
  it('[FINDING S14-TS4] a timed-out waitForDeletion says the object is still there and why (its finalizers, or that nothing deleted it), instead of only "deletion ... did not hold"', async () => {
    const held = new ResourceID('held', namespace);
    await environment.adminClient.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'held', namespace, finalizers: ['example.com/keep'] },
    });
    await environment.adminClient.delete(ResourceTypes.ConfigMap, held);
    try {
      const wait = environment.waitForDeletion(ResourceTypes.ConfigMap, held, { timeoutMs: 300 });
      await expect(wait).rejects.toMatchObject({ code: 'WaitForTimeout' });
      await expect(wait).rejects.toThrow(
        new RegExp(
          `^ConfigMap ${namespace}/held was not deleted \\(still there at resourceVersion \\d+, deletionTimestamp \\S+, finalizers \\[example\\.com/keep\\] not removed\\) within 300 ms`,
        ),
      );
    } finally {
      await environment.adminClient.jsonPatch(ResourceTypes.ConfigMap, held, [
        { op: 'remove', path: '/metadata/finalizers' },
      ]);
    }
    await environment.adminClient.create(ResourceTypes.ConfigMap, { metadata: { name: 'kept', namespace } });
    await expect(
      environment.waitForDeletion(ResourceTypes.ConfigMap, new ResourceID('kept', namespace), {
        timeoutMs: 300,
      }),
    ).rejects.toThrow(
      new RegExp(
        `^ConfigMap ${namespace}/kept was not deleted \\(still there at resourceVersion \\d+, no deletionTimestamp: nothing deleted it\\) within 300 ms`,
      ),
    );
  });
  it('[FINDING S14-TS5] waitForResource of a kind the server does not serve (its CRD not applied) says so, instead of "did not appear"', async () => {
    const Widget = defineResource<KubernetesResource>({
      group: 'widgets.s14.example.com',
      version: 'v1',
      kind: 'Widget',
    });
    await expect(
      environment.waitForResource(Widget, new ResourceID('w', namespace), undefined, { timeoutMs: 300 }),
    ).rejects.toThrow(
      `Widget ${namespace}/w did not appear within 300 ms: the API server does not serve widgets.widgets.s14.example.com/v1; apply its CustomResourceDefinition first (the crds option)`,
    );
  });
});

describe('review S14: waits and the end of a test', () => {
  let environment: OperatorTestEnvironment;
  beforeAll(async () => {
    environment = await OperatorTestEnvironment.start({ environment: {} });
  }, 60_000);
  afterAll(async () => {
    await environment?.stop();
  });

  it('[FINDING S14-TS3] a wait still pending when close() runs (or its AbortSignal fires) rejects at once naming what it awaited, instead of polling the closed module until its own timeout', async () => {
    const t = await createOperatorTestingModule({
      imports: [EmptyFeature],
      operator: { readEnvironment: false },
      testEnvironment: environment,
    });
    // e.g. a test that failed (or timed out) before awaiting it, with close() in afterEach
    const wait = t.waitForResource(ResourceTypes.ConfigMap, 'never', undefined, { timeoutMs: 600_000 });
    const settled = outcomeWithin(wait, 10_000);
    await t.close();
    const outcome = await settled;
    expect(outcome).toContain(
      `rejected ConfigMap ${t.namespace}/never did not appear before the wait was aborted`,
    );
    expect(outcome).toContain('the testing module was closed');
    await expect(wait).rejects.toMatchObject({ code: 'WaitForAborted' });

    // Vitest's test context has a signal that fires when the test ends or times out
    const controller = new AbortController();
    const own = waitFor(() => false, {
      timeoutMs: 600_000,
      description: 'the moon',
      signal: controller.signal,
    });
    const ownSettled = outcomeWithin(own, 5_000);
    controller.abort(new Error('the test timed out'));
    expect(await ownSettled).toBe(
      'rejected the moon did not hold before the wait was aborted: the test timed out',
    );
  });

  it('[FINDING S14-TS9] imports without an OperatorModule are refused saying to import the app module or pass operator, instead of Nest\'s "could not find Operator element", and a failed start leaves no client open', async () => {
    await expect(
      createOperatorTestingModule({ imports: [EmptyFeature], testEnvironment: environment }),
    ).rejects.toMatchObject({
      code: 'OperatorModuleConfiguration',
      message:
        'createOperatorTestingModule: the testing module has no OperatorModule; put the module that imports ' +
        'OperatorModule.forRoot or forRootAsync (usually the app root module) in imports, or pass the option ' +
        'operator to add OperatorModule.forRoot(operator)',
    });
    // a start that fails after the operator's client was made (its primary kind is not served)
    const close = jest.spyOn(KubernetesClient.prototype, 'close');
    try {
      await expect(
        createOperatorTestingModule({ imports: [UnservedApp], testEnvironment: environment }),
      ).rejects.toThrow(/widgets/);
      // the client made for the operator is closed (the environment's admin client stays open)
      expect(close.mock.contexts.filter((c) => c !== environment.adminClient).length).toBeGreaterThanOrEqual(
        1,
      );
      expect(environment.adminClient.isClosed).toBe(false);
    } finally {
      close.mockRestore();
    }
  });

  it('[FINDING S14-TS10] stopping a shared environment closes the testing modules still open on it (a forgotten close()), instead of leaving their operators running against the stopped server', async () => {
    const shared = await OperatorTestEnvironment.start({ environment: {} });
    const t = await createOperatorTestingModule({
      imports: [EmptyFeature],
      operator: { readEnvironment: false },
      testEnvironment: shared,
    });
    expect(t.operator.runtimeInfo.isStarted()).toBe(true);
    await shared.stop();
    expect(t.operator.runtimeInfo.isStarted()).toBe(false);
    // closing it afterwards (afterEach after afterAll's stop) is harmless
    await t.close();
  });

  it("[FINDING S14-TS11] the operator's client in a testing module reports its retries to the app's metrics and keeps its clientOptions, as the module's own client does", async () => {
    // the operator's first list of ConfigMaps is answered 503 once: its client retries it
    environment.server!.faults.failNext({
      verb: 'list',
      resource: 'configmaps',
      code: 503,
      retryAfterSeconds: 0,
    });
    const t = await createOperatorTestingModule({
      imports: [RetryCountingApp],
      testEnvironment: environment,
    });
    try {
      await waitFor(() => clientRetries.includes('list'), {
        timeoutMs: 5_000,
        description: () =>
          `a list retry reported to the metrics (reported: ${clientRetries.join(', ') || 'none'})`,
      });
    } finally {
      environment.server!.faults.clear();
      await t.close();
    }
  });

  it('guard: a controller of a cluster-scoped kind is not restricted to the test namespace (it sees the whole cluster)', async () => {
    const t = await createOperatorTestingModule({ imports: [NamespacesApp], testEnvironment: environment });
    try {
      expect(t.module.get(OperatorRegistry).getController('s14-namespaces').configuration.namespaces).toEqual(
        [],
      );
      const other = await environment.createNamespace('s14-elsewhere');
      await waitFor(() => seenNamespaces.has(other) && seenNamespaces.has(t.namespace), {
        description: `the Namespaces ${other} and ${t.namespace} reconciled`,
      });
    } finally {
      await t.close();
    }
  });

  it('[FINDING S14-TS13] a testing module and an environment declared with await using are closed when the test throws midway, instead of leaving their operator and server running', async () => {
    let seen: OperatorTestingContext | undefined;
    let own: OperatorTestEnvironment | undefined;
    await expect(
      (async () => {
        await using env = await OperatorTestEnvironment.start({ environment: {} });
        own = env;
        await using t = await createOperatorTestingModule({
          imports: [EmptyFeature],
          operator: { readEnvironment: false },
          testEnvironment: environment,
        });
        seen = t;
        throw new Error('the test failed midway');
      })(),
    ).rejects.toThrow('the test failed midway');
    expect(seen!.operator.runtimeInfo.isStarted()).toBe(false);
    expect(own!.adminClient.isClosed).toBe(true);
  });
});

describe('review S14: CRD files', () => {
  let environment: OperatorTestEnvironment;
  let dir: string;
  beforeAll(async () => {
    environment = await OperatorTestEnvironment.start({ environment: {} });
    dir = await mkdtemp(join(tmpdir(), 'tosdk-s14-crds-'));
  }, 60_000);
  afterAll(async () => {
    await environment?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('[FINDING S14-TS6] a multi-version CRD whose versions share fields with a YAML merge key (<<: *v1) loads as kubectl reads it, instead of being refused with "spec.versions[1].served: Required value"', async () => {
    const file = join(dir, 'gadgets.yaml');
    await writeFile(
      file,
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.s14.example.com
spec:
  group: s14.example.com
  names: { kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList }
  scope: Namespaced
  versions:
    - &v1
      name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
    - <<: *v1
      name: v2
      storage: false
`,
    );
    await applyCrds(environment.adminClient, await loadCrds([file]));
    const crd = (await environment.adminClient.get(
      CustomResourceDefinitionType,
      new ResourceID('gadgets.s14.example.com'),
    )) as {
      spec: { versions: Array<{ name: string; served: boolean; storage: boolean; schema?: unknown }> };
    };
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage, v.schema !== undefined])).toEqual([
      ['v1', true, true, true],
      ['v2', true, false, true],
    ]);
  });

  it("[FINDING S14-TS7] a directory of CRD files (config/crd/bases, a chart's crds/) loads every .yaml, .yml and .json file in it, instead of failing with EISDIR", async () => {
    const crds = join(dir, 'bases');
    await mkdir(crds);
    await writeFile(join(crds, 'b-sprockets.json'), JSON.stringify(crdObject('sprockets', 'Sprocket')));
    await writeFile(join(crds, 'a-cogs.yaml'), JSON.stringify(crdObject('cogs', 'Cog')));
    await writeFile(join(crds, 'README.md'), '# not a CRD\n');
    const loaded = await loadCrds([crds]);
    expect(loaded.map((c) => c.metadata!.name)).toEqual([
      'cogs.s14.example.com',
      'sprockets.s14.example.com',
    ]);
    await applyCrds(environment.adminClient, loaded);

    const empty = join(dir, 'empty');
    await mkdir(empty);
    await expect(loadCrds([empty])).rejects.toMatchObject({
      code: 'CrdLoad',
      message: `CRD directory ${empty} has no .yaml, .yml or .json file; give the directory holding the CRD files (e.g. config/crd/bases)`,
    });
  });

  it('[FINDING S14-TS8] a wrong crds entry is refused naming the file, the document and what to do (a missing relative path, a manifest that is no CRD, a v1beta1 CRD)', async () => {
    await expect(loadCrds(['deploy/s14-missing-crd.yaml'])).rejects.toMatchObject({
      code: 'CrdLoad',
      message: expect.stringContaining(
        `cannot read CRD file deploy/s14-missing-crd.yaml (${join(process.cwd(), 'deploy/s14-missing-crd.yaml')}): ENOENT`,
      ),
    });
    await expect(loadCrds(['deploy/s14-missing-crd.yaml'])).rejects.toThrow(
      'relative paths start at the working directory of the test run',
    );

    const mixed = join(dir, 'all.yaml');
    const cog = JSON.stringify(crdObject('cogs', 'Cog'));
    await writeFile(
      mixed,
      `---\n${cog}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: operator\nspec: {}\n`,
    );
    await expect(loadCrds([mixed])).rejects.toMatchObject({
      code: 'CrdLoad',
      message: `${mixed}, document 2: Deployment operator (apps/v1) is not a CustomResourceDefinition; crds takes CRD files and directories only: create other objects in the test (adminClient.create or apply)`,
    });

    const old = join(dir, 'old.yaml');
    await writeFile(
      old,
      'apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: olds.s14.example.com\n',
    );
    await expect(loadCrds([old])).rejects.toMatchObject({
      code: 'CrdLoad',
      message: `${old}, document 1: CustomResourceDefinition olds.s14.example.com is apiextensions.k8s.io/v1beta1, which Kubernetes no longer serves (removed in 1.22); convert it to apiextensions.k8s.io/v1 (e.g. generate it with customResourceDefinitions() of @tosdk/core)`,
    });
    // an object without apiVersion is still taken (the client sends it as apiextensions.k8s.io/v1)
    const { apiVersion: _omitted, ...bare } = crdObject('bolts', 'Bolt');
    const bolts = await loadCrds([bare]);
    expect(bolts.map((c) => c.metadata!.name)).toEqual(['bolts.s14.example.com']);
    await applyCrds(environment.adminClient, bolts);
  });

  it('[FINDING S14-TS12] a CRD file saved with kubectl get crds -o yaml (a List) loads its items, as kubectl apply -f takes it, instead of being refused as "List is not a CustomResourceDefinition"', async () => {
    const cogs = crdObject('cogs', 'Cog');
    const sprockets = crdObject('sprockets', 'Sprocket');
    const saved = join(dir, 'saved.json');
    await writeFile(
      saved,
      JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: {}, items: [cogs, sprockets] }),
    );
    expect((await loadCrds([saved])).map((c) => c.metadata!.name)).toEqual([
      'cogs.s14.example.com',
      'sprockets.s14.example.com',
    ]);
    const typed = join(dir, 'typed.yaml');
    await writeFile(
      typed,
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinitionList',
        items: [cogs],
      }),
    );
    expect((await loadCrds([typed])).map((c) => c.metadata!.name)).toEqual(['cogs.s14.example.com']);
  });
});
