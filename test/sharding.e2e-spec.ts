import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import {
  defineResource,
  KubernetesClient,
  ResourceID,
  SHARD_ACK_ANNOTATION,
  SHARD_GROUP_LABEL,
} from '@tosdk/core';
import type { CustomResource, KubernetesResource } from '@tosdk/core';

type Item = CustomResource<{ value?: string }, { observed?: string; by?: string }>;
const Item = defineResource<Item>({ group: 'shard.tosdk.io', version: 'v1', kind: 'Item' });
const Lease = defineResource<KubernetesResource>({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
});
const CRD = defineResource<KubernetesResource>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});
const Namespace = defineResource<KubernetesResource>({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  scope: 'Cluster',
});

const root = fileURLToPath(new URL('..', import.meta.url));
const hooks = fileURLToPath(new URL('./fixtures/nest-app/ts-hooks.mjs', import.meta.url));
const script = fileURLToPath(new URL('./fixtures/sharding/replica.ts', import.meta.url));
/** Resources: the 3,000 (about 13 s on an idle 2-core machine; `TOSDK_SHARDING_E2E_COUNT` changes it). */
const COUNT = Number(process.env['TOSDK_SHARDING_E2E_COUNT'] ?? '3000');
const GROUP = 'items';

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Interval {
  key: string;
  by: string;
  start: number;
  end: number | undefined;
}

/** Collects every replica's reconciliation intervals; finds a resource held by two replicas at once. */
class Recorder {
  readonly intervals: Interval[] = [];
  private readonly open = new Map<string, Interval>();

  line(entry: { e: string; key?: string; t?: number; by: string }): void {
    if (entry.e === 'start') {
      const i: Interval = { key: entry.key!, by: entry.by, start: entry.t!, end: undefined };
      this.intervals.push(i);
      this.open.set(`${entry.by} ${entry.key}`, i);
    } else if (entry.e === 'end') {
      const i = this.open.get(`${entry.by} ${entry.key}`);
      if (i) i.end = entry.t!;
      this.open.delete(`${entry.by} ${entry.key}`);
    }
  }

  /** A killed replica's open intervals end when it was killed. */
  killed(by: string, at: number): void {
    for (const [k, i] of this.open) {
      if (i.by === by) {
        i.end = at;
        this.open.delete(k);
      }
    }
  }

  overlaps(): string[] {
    const byKey = new Map<string, Interval[]>();
    for (const i of this.intervals) byKey.set(i.key, [...(byKey.get(i.key) ?? []), i]);
    const found: string[] = [];
    for (const [key, list] of byKey) {
      list.sort((a, b) => a.start - b.start);
      for (let a = 0; a < list.length; a++) {
        for (let b = a + 1; b < list.length && list[b].start < (list[a].end ?? Infinity); b++) {
          if (list[a].by !== list[b].by)
            found.push(
              `${key}: ${list[a].by} [${list[a].start}, ${list[a].end}] and ${list[b].by} [${list[b].start}, ${list[b].end}]`,
            );
        }
      }
    }
    return found;
  }
}

describe('sharding across three operator processes', () => {
  let server: KubeApiServer;
  let admin: KubernetesClient;
  let dir: string;
  let kubeconfig: string;
  const children = new Map<string, ChildProcess>();
  const recorder = new Recorder();
  const stderr = new Map<string, string>();

  const launch = (id: string, namespace: string): ChildProcess => {
    const proc = spawn(process.execPath, ['--import', hooks, script], {
      cwd: root,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        KUBECONFIG: kubeconfig,
        FIXTURE_NAMESPACE: namespace,
        FIXTURE_DELAY_MS: '5',
        TOSDK_SHARDING: 'true',
        TOSDK_SHARDING_NAME: GROUP,
        TOSDK_SHARDING_NAMESPACE: 'default',
        TOSDK_SHARDING_IDENTITY: id,
        TOSDK_SHARDING_LEASE_DURATION_MS: '3000',
        TOSDK_SHARDING_RENEW_DEADLINE_MS: '2000',
        TOSDK_SHARDING_RETRY_PERIOD_MS: '300',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let pending = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const p of parts) if (p.startsWith('{')) recorder.line(JSON.parse(p) as { e: string; by: string });
    });
    proc.stderr.on('data', (chunk: Buffer) =>
      stderr.set(id, (stderr.get(id) ?? '') + chunk.toString('utf8')),
    );
    children.set(id, proc);
    return proc;
  };

  const items = async (namespace: string) => (await admin.list(Item, { namespace })).items;
  const allObserved = async (namespace: string, value: string, allowed?: string[]) => {
    const list = await items(namespace);
    return (
      list.length === COUNT &&
      list.every((i) => i.status?.observed === value && (!allowed || allowed.includes(i.status.by ?? '')))
    );
  };
  const setAll = async (namespace: string, value: string) => {
    for (let i = 0; i < COUNT; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, COUNT - i) }, (_, j) =>
          admin.mergePatch(Item, new ResourceID(`item-${i + j}`, namespace), { spec: { value } }),
        ),
      );
    }
  };
  /** Waits until `members` leases of the group acknowledge one ring (every replica drained for it). */
  const oneRing = (members: number) =>
    waitFor(
      async () => {
        const leases = (
          await admin.list(Lease, { namespace: 'default', labelSelector: `${SHARD_GROUP_LABEL}=${GROUP}` })
        ).items;
        const acks = new Set(leases.map((l) => l.metadata?.annotations?.[SHARD_ACK_ANNOTATION] ?? ''));
        return leases.length === members && acks.size === 1 && !acks.has('');
      },
      `${members} replicas acknowledging one ring`,
      90_000,
    );
  const shares = async (namespace: string) => {
    const counts: Record<string, number> = {};
    for (const i of await items(namespace))
      counts[i.status?.by ?? '?'] = (counts[i.status?.by ?? '?'] ?? 0) + 1;
    return counts;
  };

  beforeAll(async () => {
    server = await KubeApiServer.start();
    admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
    dir = await mkdtemp(join(tmpdir(), 'tosdk-sharding-'));
    kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
    await admin.create(CRD, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'items.shard.tosdk.io' },
      spec: {
        group: 'shard.tosdk.io',
        scope: 'Namespaced',
        names: { plural: 'items', singular: 'item', kind: 'Item', listKind: 'ItemList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        ],
      },
    } as KubernetesResource);
    await waitFor(
      async () =>
        (
          await admin
            .request<{ resources?: Array<{ name?: string }> }>('/apis/shard.tosdk.io/v1')
            .catch(() => undefined)
        )?.resources?.some((r) => r.name === 'items') ?? false,
      'the Item CRD served',
    );
  }, 60_000);

  afterAll(async () => {
    for (const proc of children.values())
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    admin?.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("[SH-03] splits the resources about evenly, hands a SIGKILLed replica's share to the others, rebalances when it is back; never two at once, none left behind", async () => {
    const ns = 'sharded';
    await admin.create(Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (let i = 0; i < COUNT; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, COUNT - i) }, (_, j) =>
          admin.create(Item, {
            apiVersion: Item.apiVersion,
            kind: Item.kind,
            metadata: { name: `item-${i + j}`, namespace: ns },
            spec: { value: 'v1' },
          }),
        ),
      );
    }
    for (const id of ['p1', 'p2', 'p3']) launch(id, ns);
    await waitFor(() => allObserved(ns, 'v1'), 'every item reconciled', 90_000);
    // the first replica up may have done them all alone; once the three share one ring they split
    await oneRing(3);
    await setAll(ns, 'v1b');
    await waitFor(() => allObserved(ns, 'v1b'), 'every item reconciled by the three replicas', 60_000);
    const first = await shares(ns);
    for (const id of ['p1', 'p2', 'p3']) expect(first[id] ?? 0).toBeGreaterThanOrEqual(COUNT / 6);

    // SIGKILL p2: its lease expires, p1 and p3 take its share over
    const p2 = children.get('p2')!;
    let diedAt = 0;
    p2.once('exit', () => (diedAt = Date.now()));
    // 'close': its last output lines are read too
    const closed = new Promise((resolve) => p2.once('close', resolve));
    p2.kill('SIGKILL');
    await closed;
    recorder.killed('p2', diedAt);
    await setAll(ns, 'v2');
    await waitFor(() => allObserved(ns, 'v2', ['p1', 'p3']), "p2's share reconciled by p1 and p3", 60_000);

    // p2 comes back (a new incarnation under the same identity): the shares rebalance
    launch('p2', ns);
    await oneRing(3);
    await setAll(ns, 'v3');
    await waitFor(() => allObserved(ns, 'v3'), 'every item reconciled after p2 rejoined', 60_000);
    const last = await shares(ns);
    expect(last['p2'] ?? 0).toBeGreaterThanOrEqual(COUNT / 6);

    expect({ overlaps: recorder.overlaps(), stderr: [...stderr.values()].join('').slice(0, 2000) }).toEqual({
      overlaps: [],
      stderr: expect.any(String),
    });
    expect(recorder.intervals.length).toBeGreaterThanOrEqual(3 * COUNT);
  }, 240_000);
});
