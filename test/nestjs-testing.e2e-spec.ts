import 'reflect-metadata';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { KubernetesClient, ResourceID, ResourceTypes } from '@tosdk/core';
import { OperatorRegistry } from '@tosdk/nestjs';
import {
  createOperatorTestingModule,
  CustomResourceDefinitionType,
  loadCrds,
  OperatorTestEnvironment,
  waitFor,
} from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { FixtureAppModule } from './fixtures/nest-app/app.module.js';
import { Greeting, GREETING_CRD_PATH } from './fixtures/nest-app/greeting/greeting.resource.js';
import { ReconcileProbe } from './fixtures/nest-app/greeting/reconcile-probe.service.js';

const greeting = (namespace: string, name: string): Greeting => ({
  metadata: { name, namespace },
  spec: { message: name },
});

describe('[OP-08] @tosdk/nestjs/testing: the mock-operator test module', () => {
  let dir: string;
  // a "real cluster" that must never be reached: it counts every request
  let decoy: Server;
  let decoyRequests = 0;
  const saved = process.env['KUBECONFIG'];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tosdk-testing-'));
    decoy = createServer((_req, res) => {
      decoyRequests++;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', resolve));
    const port = (decoy.address() as { port: number }).port;
    const kubeconfig = join(dir, 'real-cluster');
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'real', cluster: { server: `http://127.0.0.1:${port}` } }],
        users: [{ name: 'me', user: { token: 'secret' } }],
        contexts: [{ name: 'real', context: { cluster: 'real', user: 'me' } }],
        'current-context': 'real',
      }),
    );
    process.env['KUBECONFIG'] = kubeconfig;
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env['KUBECONFIG'];
    else process.env['KUBECONFIG'] = saved;
    await new Promise((resolve) => decoy?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  describe('one environment, a module per test', () => {
    let env: OperatorTestEnvironment;
    const contexts: OperatorTestingContext[] = [];
    const start = async () => {
      const t = await createOperatorTestingModule({
        testEnvironment: env,
        imports: [FixtureAppModule.forRoot()],
      });
      contexts.push(t);
      return t;
    };

    beforeAll(async () => {
      env = await OperatorTestEnvironment.start({ crds: [GREETING_CRD_PATH] });
    });
    afterAll(async () => {
      for (const t of contexts) await t.close();
      await env?.stop();
    });

    it('[OP-08] loads CRDs from YAML files and waits until they are Established', async () => {
      const [crd] = await loadCrds([GREETING_CRD_PATH]);
      expect(crd.metadata!.name).toBe('greetings.fixtures.tosdk.io');
      const served = (await env.adminClient.get(
        CustomResourceDefinitionType,
        new ResourceID('greetings.fixtures.tosdk.io'),
      )) as { status?: { conditions?: Array<{ type: string; status: string }> } };
      expect(served.status?.conditions).toContainEqual(
        expect.objectContaining({ type: 'Established', status: 'True' }),
      );
      const bad = join(dir, 'not-a-crd.yaml');
      await writeFile(bad, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n');
      await expect(loadCrds([bad])).rejects.toMatchObject({
        code: 'CrdLoad',
        message: expect.stringContaining(bad),
      });
    });

    it('[OP-08] gives each test its own namespace and restricts the controllers to it', async () => {
      const first = await start();
      const second = await start();
      expect(first.namespace).not.toBe(second.namespace);
      const registry = first.module.get(OperatorRegistry);
      expect(registry.getController('greetingreconciler').configuration.namespaces).toEqual([
        first.namespace,
      ]);
      expect(registry.getController('audit').configuration.namespaces).toEqual([first.namespace]);
      await first.adminClient.create(Greeting, greeting(first.namespace, 'mine'));
      await second.adminClient.create(Greeting, greeting(second.namespace, 'theirs'));
      await first.waitForResource(ResourceTypes.ConfigMap, 'mine');
      await second.waitForResource(ResourceTypes.ConfigMap, 'theirs');
      expect(first.module.get(ReconcileProbe).attemptsOf('theirs')).toEqual([]);
      expect(second.module.get(ReconcileProbe).attemptsOf('mine')).toEqual([]);
    });

    it('[OP-08] offers an admin client beside the operator own, and server-side apply works', async () => {
      const t = await start();
      expect(t.adminClient).not.toBe(t.operator.client);
      const applied = await t.adminClient.apply(
        ResourceTypes.ConfigMap,
        { metadata: { name: 'applied', namespace: t.namespace }, data: { a: '1' } },
        { fieldManager: 'test-suite' },
      );
      expect(applied.metadata?.managedFields).toContainEqual(
        expect.objectContaining({ manager: 'test-suite', operation: 'Apply' }),
      );
      // the operator's own client reads what the admin wrote
      expect(
        (await t.operator.client.get(ResourceTypes.ConfigMap, new ResourceID('applied', t.namespace)))?.data,
      ).toEqual({ a: '1' });
    });

    it('[OP-08] waits for resources with a timeout that says what it waited for', async () => {
      const t = await start();
      await expect(
        t.waitForResource(ResourceTypes.ConfigMap, 'never', undefined, { timeoutMs: 200 }),
      ).rejects.toMatchObject({
        code: 'WaitForTimeout',
        message: expect.stringContaining(`ConfigMap ${t.namespace}/never`),
      });
      await t.adminClient.create(Greeting, greeting(t.namespace, 'gone'));
      await t.waitForResource(ResourceTypes.ConfigMap, 'gone');
      await t.adminClient.delete(Greeting, new ResourceID('gone', t.namespace));
      await t.waitForDeletion(Greeting, 'gone');
    });

    it('[OP-08] never reached the cluster KUBECONFIG names', async () => {
      expect(decoyRequests).toBe(0);
      // the decoy does count what reaches it
      await fetch(`http://127.0.0.1:${(decoy.address() as { port: number }).port}/api`);
      expect(decoyRequests).toBe(1);
    });
  });

  it('[OP-08] runs the same test code against an existing cluster when TOSDK_TEST_USE_EXISTING_CLUSTER=true', async () => {
    const cluster = await KubeApiServer.start({ port: 0 });
    try {
      const kubeconfig = join(dir, 'existing');
      await cluster.writeKubeconfig(kubeconfig);
      const env = await OperatorTestEnvironment.start({
        crds: [GREETING_CRD_PATH],
        environment: { TOSDK_TEST_USE_EXISTING_CLUSTER: 'true', KUBECONFIG: kubeconfig },
      });
      expect(env.server).toBeUndefined();
      const t = await createOperatorTestingModule({
        testEnvironment: env,
        imports: [FixtureAppModule.forRoot()],
      });
      const seen = KubernetesClient.fromKubeConfig(cluster.kubeConfig());
      await t.adminClient.create(Greeting, greeting(t.namespace, 'real'));
      await t.waitForResource(ResourceTypes.ConfigMap, 'real');
      expect(await seen.get(ResourceTypes.ConfigMap, new ResourceID('real', t.namespace))).toBeDefined();
      await t.close();
      await env.stop();
      // its namespace is deleted from the cluster afterwards
      await waitFor(async () => {
        const ns = await seen.get(ResourceTypes.Namespace, new ResourceID(t.namespace));
        return ns === undefined || ns.metadata?.deletionTimestamp !== undefined;
      });
      seen.close();
    } finally {
      await cluster.stop();
    }
  });
});
