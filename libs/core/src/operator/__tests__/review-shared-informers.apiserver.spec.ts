import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext, EventSources } from '../../api/reconciler.js';
import type { ManagedFieldsPolicy } from '../../cache/managed-fields.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { ResourceID } from '../../api/resource-id.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { InformerUsageError } from '../../informer/errors.js';
import { ConfigMapDependent } from '../../dependent/__tests__/support.js';
import { apiServerSuite, newNamespace, waitFor as waitForWithin, Widget, widget } from './support.js';

/**
 * Adversarial review of the operator's shared informers (ce30b4f and following): one user's own
 * writes, indexes, stops and options must never change what another user of the same watch sees.
 */
const bed = apiServerSuite();
const Secret = ResourceTypes.Secret;
const CM = ResourceTypes.ConfigMap;
const WAIT_MS = 30_000;
jest.setTimeout(120_000);
const waitFor = (condition: () => boolean | Promise<boolean>, what: string) =>
  waitForWithin(condition, what, WAIT_MS);
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Requests of `verb` on `resource` in `ns` seen by the server. */
function requests(verb: string, resource: string, ns: string): number {
  return bed.server.requests.log.filter(
    (r) => r.verb === verb && r.resource === resource && r.namespace === ns,
  ).length;
}

function ownerRefs(owner: Widget) {
  return [
    {
      apiVersion: Widget.apiVersion,
      kind: Widget.kind,
      name: owner.metadata!.name!,
      uid: owner.metadata!.uid!,
      controller: true,
    },
  ];
}

/** A widget controller with an InformerEventSource of Secrets; records the secrets (name=data) it read per run. */
class SecretsOfWidget {
  readonly runs: string[][] = [];
  source!: InformerEventSource<V1Secret, Widget>;
  constructor(private readonly options: { indexed?: boolean; managedFields?: ManagedFieldsPolicy } = {}) {}
  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    this.source = new InformerEventSource<V1Secret, Widget>(
      {
        type: Secret,
        managedFields: this.options.managedFields,
        indexers: this.options.indexed ? { byValue: (s) => [s.data?.v ?? ''] } : undefined,
      },
      context,
    );
    return { secrets: this.source };
  }
  reconcile(_w: Widget, context: Context<Widget>): UpdateControl<Widget> {
    this.runs.push(
      context
        .getSecondaryResources(Secret)
        .map((s) => `${s.metadata!.name}=${Buffer.from(s.data?.v ?? '', 'base64').toString()}`)
        .sort(),
    );
    return UpdateControl.noUpdate();
  }
  /** Whether a run read exactly these secrets. */
  saw(...secrets: string[]): boolean {
    const want = JSON.stringify([...secrets].sort());
    return this.runs.some((r) => JSON.stringify(r) === want);
  }
}

describe('review: shared informers (issue 15 §5)', () => {
  it("[ES-01] a re-list after 410 on a shared informer gives every user the update, the delete and the add it missed; one user's index stays its own", async () => {
    const ns = await newNamespace(bed.admin);
    const operator = bed.operator();
    const users = [new SecretsOfWidget({ indexed: true }), new SecretsOfWidget()];
    users.forEach((u, i) =>
      operator.register(u, { name: `relist-${i}`, resourceType: Widget, namespaces: [ns] }),
    );
    const w = await bed.admin.create(Widget, widget('w', ns));
    for (const name of ['a', 'b'])
      await bed.admin.create(Secret, {
        metadata: { name, namespace: ns, ownerReferences: ownerRefs(w) },
        data: { v: b64('1') },
      });
    await operator.start();
    await waitFor(() => users.every((u) => u.saw('a=1', 'b=1')), 'both read a and b');
    await waitFor(() => requests('watch', 'secrets', ns) === 1, 'the one watch open');
    expect(requests('list', 'secrets', ns)).toBe(1);
    // the index of user 0 is not user 1's
    expect(
      users[0].source
        .byIndex('byValue', b64('1'))
        .map((s) => s.metadata!.name)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(() => users[1].source.byIndex('byValue', b64('1'))).toThrow(InformerUsageError);

    // the watch drops and comes back late, after the history it needs was compacted: a re-list
    bed.server.faults.addLatency({ verb: 'watch', resource: 'secrets', ms: 1_000 });
    bed.server.faults.closeAllWatches();
    await bed.admin.mergePatch(Secret, new ResourceID('a', ns), { data: { v: b64('2') } });
    await bed.admin.delete(Secret, new ResourceID('b', ns));
    await bed.admin.create(Secret, {
      metadata: { name: 'c', namespace: ns, ownerReferences: ownerRefs(w) },
      data: { v: b64('3') },
    });
    bed.server.faults.compact();
    await waitFor(() => users.every((u) => u.saw('a=2', 'c=3')), 'both read the state after the re-list');
    bed.server.faults.clear();
    expect(requests('list', 'secrets', ns)).toBe(2); // one shared re-list
    for (const u of users) {
      expect(
        u.source
          .list(ns)
          .map((s) => s.metadata!.name)
          .sort(),
      ).toEqual(['a', 'c']);
    }
    expect(users[0].source.byIndex('byValue', b64('1'))).toEqual([]);
    expect(users[0].source.byIndex('byValue', b64('3')).map((s) => s.metadata!.name)).toEqual(['c']);
    // and the shared watch still delivers to both afterwards
    await bed.admin.mergePatch(Secret, new ResourceID('c', ns), { data: { v: b64('4') } });
    await waitFor(() => users.every((u) => u.saw('a=2', 'c=4')), 'both read the change after the re-list');
  });

  it("[ES-01] a controller's own status patch of its primary is someone else's change for another controller's InformerEventSource on the same kind", async () => {
    const ns = await newNamespace(bed.admin);
    const operator = bed.operator();
    // X: the widgets' controller, writes status.observed
    const xRuns: string[] = [];
    operator.register(
      {
        reconcile(w: Widget) {
          xRuns.push(`${w.spec?.value}/${w.status?.observed ?? '-'}`);
          if (w.status?.observed === w.spec?.value) return UpdateControl.noUpdate<Widget>();
          return UpdateControl.patchStatus<Widget>({ ...w, status: { observed: w.spec?.value } });
        },
      },
      { name: 'x-widgets', resourceType: Widget, namespaces: [ns] },
    );
    // Y: a ConfigMap controller watching widgets of the same name (keepAll: the same selection as X's primaries)
    const yRuns: string[] = [];
    let ySource!: InformerEventSource<Widget, V1ConfigMap>;
    operator.register(
      {
        prepareEventSources(context: EventSourceContext<V1ConfigMap>): EventSources {
          ySource = new InformerEventSource<Widget, V1ConfigMap>(
            {
              type: Widget,
              managedFields: 'keepAll',
              secondaryToPrimaryMapper: (obj) => [new ResourceID(obj.metadata!.name!, ns)],
            },
            context,
          );
          return { widgets: ySource };
        },
        reconcile(cm: V1ConfigMap) {
          const w = ySource.get(new ResourceID(cm.metadata!.name!, ns));
          yRuns.push(`${w?.spec?.value ?? '-'}/${w?.status?.observed ?? '-'}`);
          return UpdateControl.noUpdate<V1ConfigMap>();
        },
      },
      { name: 'y-configmaps', resourceType: CM, namespaces: [ns] },
    );
    await bed.admin.create(CM, { metadata: { name: 'w', namespace: ns }, data: {} });
    await operator.start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(() => yRuns.includes('one/one'), "Y reconciles on X's status write and reads it");
    // X's primaries and Y's source share the watch
    await waitFor(() => requests('watch', 'widgets', ns) >= 1, 'the widget watch open');
    expect(requests('watch', 'widgets', ns)).toBe(1);
    expect(requests('list', 'widgets', ns)).toBe(1);
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'two' } });
    await waitFor(
      () => yRuns.includes('two/-') || yRuns.includes('two/one'),
      'Y sees the foreign spec change',
    );
    await waitFor(() => yRuns.includes('two/two'), "Y sees X's second status write");
    await waitFor(() => xRuns.includes('two/two') || xRuns.length >= 2, 'X ran for the change');
  });

  it("[ES-01] two controllers of the same primaries share the informer: each one's status write reaches the other, which reads it, and neither is hidden by the other's own write", async () => {
    const ns = await newNamespace(bed.admin);
    const operator = bed.operator();
    const runs: Record<'x' | 'y', string[]> = { x: [], y: [] };
    // x owns status.observed, y owns status.message (server-side apply of the status, fresh objects)
    const controller = (who: 'x' | 'y') => ({
      reconcile(w: Widget) {
        runs[who].push(`${w.spec?.value}/${w.status?.observed ?? '-'}/${w.status?.message ?? '-'}`);
        const mine = who === 'x' ? w.status?.observed : w.status?.message;
        if (mine === w.spec?.value) return UpdateControl.noUpdate<Widget>();
        return UpdateControl.patchStatus<Widget>({
          apiVersion: Widget.apiVersion,
          kind: Widget.kind,
          metadata: { name: w.metadata!.name, namespace: ns },
          status: who === 'x' ? { observed: w.spec?.value } : { message: w.spec?.value },
        });
      },
    });
    // not generation-aware: a status change reconciles
    const options = { resourceType: Widget, namespaces: [ns], generationAware: false };
    operator.register(controller('x'), { name: 'x-status', ...options });
    operator.register(controller('y'), { name: 'y-status', ...options });
    await operator.start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(
      () => runs.x.includes('one/one/one') && runs.y.includes('one/one/one'),
      "each reconciles on the other's status write and reads both",
    );
    await waitFor(() => requests('watch', 'widgets', ns) >= 1, 'the widget watch open');
    expect(requests('watch', 'widgets', ns)).toBe(1);
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'two' } });
    await waitFor(
      () => runs.x.includes('two/two/two') && runs.y.includes('two/two/two'),
      'both converge on the change, each reading the other',
    );
    const w = await bed.admin.get(Widget, new ResourceID('w', ns));
    expect(w?.status).toEqual({ observed: 'two', message: 'two' });
  });

  it('[ES-01] own writes through a metadata-only source: read back at once, a no-op apply is not sent, a foreign change of the applied label is applied back; a full source of another controller keeps whole objects', async () => {
    const ns = await newNamespace(bed.admin);
    const w = await bed.admin.create(Widget, widget('w', ns));
    await bed.admin.create(Secret, {
      metadata: { name: 'a', namespace: ns, ownerReferences: ownerRefs(w) },
      data: { v: b64('1') },
    });
    const operator = bed.operator();
    let meta!: InformerEventSource<KubernetesResource, Widget>;
    const metaRuns: string[] = [];
    const readBack: Array<string | undefined> = [];
    operator.register(
      {
        prepareEventSources(context: EventSourceContext<Widget>): EventSources {
          meta = new InformerEventSource<KubernetesResource, Widget>(
            { type: Secret, metadataOnly: true },
            context,
          );
          return { secrets: meta };
        },
        async reconcile(_w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
          const secret = meta.get(new ResourceID('a', ns));
          metaRuns.push(secret?.metadata?.labels?.seen ?? '-');
          await context.resourceOperations().serverSideApply({
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'a', namespace: ns, labels: { seen: 'yes' } },
          });
          readBack.push(meta.get(new ResourceID('a', ns))?.metadata?.labels?.seen);
          return UpdateControl.noUpdate<Widget>();
        },
      },
      { name: 'meta-writer', resourceType: Widget, namespaces: [ns] },
    );
    const full = new SecretsOfWidget();
    operator.register(full, { name: 'full-reader', resourceType: Widget, namespaces: [ns] });
    await operator.start();
    // writes by the operator (the admin created the secret)
    const secretWrites = () =>
      bed.server.requests.log.filter(
        (r) =>
          r.namespace === ns &&
          r.resource === 'secrets' &&
          r.verb === 'patch' &&
          r.path.includes('fieldManager=meta-writer'),
      ).length;
    await waitFor(() => readBack.includes('yes'), 'the label read back right after the apply');
    await waitFor(
      () => meta.get(new ResourceID('a', ns))?.kind === 'PartialObjectMetadata',
      'the event of the write replaces the full result with metadata',
    );
    expect(secretWrites()).toBe(1);
    // another reconciliation: the label is ours already, nothing is sent
    const ran = readBack.length;
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'again' } });
    await waitFor(() => readBack.length > ran, 'reconciled again');
    expect(metaRuns.at(-1)).toBe('yes');
    expect(secretWrites()).toBe(1);
    // someone else changes the label: applied back
    await bed.admin.mergePatch(Secret, new ResourceID('a', ns), { metadata: { labels: { seen: 'no' } } });
    await waitFor(
      async () => (await bed.admin.get(Secret, new ResourceID('a', ns)))?.metadata?.labels?.seen === 'yes',
      'the label applied back',
    );
    // the full source of the other controller never held a metadata-only object
    const whole = full.source.get(new ResourceID('a', ns));
    expect(whole?.kind).not.toBe('PartialObjectMetadata');
    expect(whole?.data?.v).toBe(b64('1'));
    expect(whole?.metadata?.labels?.seen).toBe('yes');
  });

  it("[ES-01] one controller's namespace change moves its secondary source away; the other controller's source on the same watch keeps its cache and events", async () => {
    const ns = await newNamespace(bed.admin);
    const other = await newNamespace(bed.admin);
    const w = await bed.admin.create(Widget, widget('w', ns));
    await bed.admin.create(Secret, {
      metadata: { name: 'a', namespace: ns, ownerReferences: ownerRefs(w) },
      data: { v: b64('1') },
    });
    const operator = bed.operator();
    const users = [new SecretsOfWidget({ indexed: true }), new SecretsOfWidget({ indexed: true })];
    const handles = users.map((u, i) =>
      operator.register(u, { name: `moving-${i}`, resourceType: Widget, namespaces: [ns] }),
    );
    await operator.start();
    await waitFor(() => users.every((u) => u.saw('a=1')), 'both read a');
    await waitFor(() => requests('watch', 'secrets', ns) === 1, 'one secrets watch');
    await handles[0].changeNamespaces([other]);
    expect(users[0].source.list(ns)).toEqual([]);
    expect(users[1].source.list(ns).map((s) => s.metadata!.name)).toEqual(['a']);
    expect(users[1].source.byIndex('byValue', b64('1')).map((s) => s.metadata!.name)).toEqual(['a']);
    await bed.admin.mergePatch(Secret, new ResourceID('a', ns), { data: { v: b64('2') } });
    await waitFor(() => users[1].saw('a=2'), 'the staying controller reads the change');
    expect(users[1].source.byIndex('byValue', b64('2')).map((s) => s.metadata!.name)).toEqual(['a']);
    expect(users[0].saw('a=2')).toBe(false);
    expect(requests('list', 'secrets', ns)).toBe(1); // the staying share was not re-listed
  });

  it("[ES-01][WF-04] a workflow dependent's source deregistered on deactivation lets go of its share only: another controller's source on the same watch keeps its events", async () => {
    const ns = await newNamespace(bed.admin);
    const operator = bed.operator();
    const cmWatches = () =>
      bed.server.requests.log.filter(
        (r) =>
          r.verb === 'watch' &&
          r.resource === 'configmaps' &&
          r.namespace === ns &&
          r.path.includes('labelSelector'),
      ).length;
    // P: a managed workflow whose ConfigMap dependent is active unless spec.value is 'off'
    operator.register(
      {
        reconcile(w: Widget) {
          if (w.status?.observed === w.spec?.value) return UpdateControl.noUpdate<Widget>();
          return UpdateControl.patchStatus<Widget>({ ...w, status: { observed: w.spec?.value } });
        },
      },
      {
        name: 'p-workflow',
        resourceType: Widget,
        namespaces: [ns],
        workflow: {
          dependents: [
            {
              dependent: new ConfigMapDependent(
                { informer: { name: 'optional-cms', labelSelector: 'app' } },
                'optional',
              ),
              name: 'optional',
              activationCondition: (_d: unknown, p: Widget) => p.spec?.value !== 'off',
            },
          ],
        },
      },
    );
    // Q: reads the same ConfigMaps (same selector) through its own source
    let q!: InformerEventSource<V1ConfigMap, Widget>;
    const qSaw: string[] = [];
    operator.register(
      {
        prepareEventSources(context: EventSourceContext<Widget>): EventSources {
          q = new InformerEventSource<V1ConfigMap, Widget>(
            {
              type: CM,
              labelSelector: 'app',
              secondaryToPrimaryMapper: (cm) => [new ResourceID(cm.metadata!.labels!.app, ns)],
            },
            context,
          );
          return { cms: q };
        },
        reconcile(w: Widget) {
          qSaw.push(q.get(new ResourceID(`${w.metadata!.name}-optional`, ns))?.data?.value ?? '-');
          return UpdateControl.noUpdate<Widget>();
        },
      },
      { name: 'q-reader', resourceType: Widget, namespaces: [ns] },
    );
    await operator.start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'on' }));
    await waitFor(() => qSaw.includes('on'), 'Q reads the ConfigMap P created');
    await waitFor(() => cmWatches() >= 1, 'the ConfigMap watch open');
    expect(cmWatches()).toBe(1); // P's dependent and Q share it
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'off' } });
    await waitFor(
      async () => (await bed.admin.get(Widget, new ResourceID('w', ns)))?.status?.observed === 'off',
      'P reconciled with the dependent inactive (its source deregistered)',
    );
    const pSources = () => Object.keys(operator.runtimeInfo.eventSourceHealth()['p-workflow'] ?? {});
    expect(pSources()).not.toContain('optional-cms');
    await bed.admin.mergePatch(CM, new ResourceID('w-optional', ns), { data: { value: 'changed' } });
    await waitFor(() => qSaw.includes('changed'), 'Q still gets the change on the shared watch');
    expect(q.list(ns).map((c) => c.data?.value)).toEqual(['changed']);
    // active again: P's new source joins the running watch, reads the cache and repairs the drift
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'on' } });
    await waitFor(
      async () => (await bed.admin.get(CM, new ResourceID('w-optional', ns)))?.data?.value === 'on',
      'P applies its ConfigMap again',
    );
    expect(pSources()).toContain('optional-cms');
    await bed.admin.mergePatch(CM, new ResourceID('w-optional', ns), { data: { value: 'drift' } });
    await waitFor(
      async () => (await bed.admin.get(CM, new ResourceID('w-optional', ns)))?.data?.value === 'on',
      'P repairs a drift through the joined share',
    );
    await waitFor(() => qSaw.includes('drift'), 'Q saw the drift too');
  });

  it('[ES-01] a second operator in the process shares nothing with the first: its own list and watch, and it keeps its events when the first stops', async () => {
    const ns = await newNamespace(bed.admin);
    const w = await bed.admin.create(Widget, widget('w', ns));
    await bed.admin.create(Secret, {
      metadata: { name: 'a', namespace: ns, ownerReferences: ownerRefs(w) },
      data: { v: b64('1') },
    });
    const first = bed.operator();
    const second = bed.operator();
    const users = [new SecretsOfWidget(), new SecretsOfWidget()];
    first.register(users[0], { name: 'op-a', resourceType: Widget, namespaces: [ns] });
    second.register(users[1], { name: 'op-b', resourceType: Widget, namespaces: [ns] });
    await Promise.all([first.start(), second.start()]);
    await waitFor(() => users.every((u) => u.saw('a=1')), 'both operators read a');
    expect(requests('list', 'secrets', ns)).toBe(2);
    await first.stop();
    await bed.admin.mergePatch(Secret, new ResourceID('a', ns), { data: { v: b64('2') } });
    await waitFor(() => users[1].saw('a=2'), 'the second operator reads the change');
    expect(users[1].source.list(ns).map((s) => s.data?.v)).toEqual([b64('2')]);
  });

  it('[ES-01] caches with other content are not shared: a bounded cache, dropped and kept managed fields each read their own objects', async () => {
    const ns = await newNamespace(bed.admin);
    const w = await bed.admin.create(Widget, widget('w', ns));
    await bed.admin.create(Secret, {
      metadata: { name: 'a', namespace: ns, ownerReferences: ownerRefs(w) },
      data: { v: b64('1') },
    });
    const operator = bed.operator();
    const keepAll = new SecretsOfWidget({ managedFields: 'keepAll' });
    const dropAll = new SecretsOfWidget({ managedFields: 'dropAll' });
    const plain = new SecretsOfWidget();
    let bounded!: InformerEventSource<V1Secret, Widget>;
    const boundedRuns: string[] = [];
    operator.register(keepAll, { name: 'keep-all', resourceType: Widget, namespaces: [ns] });
    operator.register(dropAll, { name: 'drop-all', resourceType: Widget, namespaces: [ns] });
    operator.register(plain, { name: 'plain', resourceType: Widget, namespaces: [ns] });
    operator.register(
      {
        prepareEventSources(context: EventSourceContext<Widget>): EventSources {
          bounded = new InformerEventSource<V1Secret, Widget>(
            { type: Secret, boundedCache: { ttlMs: 60_000 } },
            context,
          );
          return { secrets: bounded };
        },
        async reconcile(): Promise<UpdateControl<Widget>> {
          const a = await bounded.fetch(new ResourceID('a', ns));
          boundedRuns.push(a?.data?.v ?? '-');
          return UpdateControl.noUpdate<Widget>();
        },
      },
      { name: 'bounded', resourceType: Widget, namespaces: [ns] },
    );
    await operator.start();
    await waitFor(
      () => [keepAll, dropAll, plain].every((u) => u.saw('a=1')) && boundedRuns.includes(b64('1')),
      'every controller reads a',
    );
    const id = new ResourceID('a', ns);
    expect(keepAll.source.get(id)?.metadata?.managedFields?.length).toBeGreaterThan(0);
    expect(dropAll.source.get(id)?.metadata?.managedFields).toBeUndefined();
    expect(plain.source.get(id)?.data?.v).toBe(b64('1'));
    expect(keepAll.source.get(id)?.data?.v).toBe(b64('1'));
    await bed.admin.mergePatch(Secret, id, { data: { v: b64('2') } });
    await waitFor(
      () => [keepAll, dropAll, plain].every((u) => u.saw('a=2')) && boundedRuns.includes(b64('2')),
      'every controller reads the change',
    );
    expect(plain.source.list(ns).map((s) => s.data?.v)).toEqual([b64('2')]);
  });
});
