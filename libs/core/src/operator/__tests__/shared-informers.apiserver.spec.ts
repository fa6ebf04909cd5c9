import { describe, expect, it } from '@jest/globals';
import type { V1Secret } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext, EventSources } from '../../api/reconciler.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { EventSourceStartError } from '../errors.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

const Secret = ResourceTypes.Secret;
const bed = apiServerSuite();

/**
 * The admin client, counting the watch streams open now per path (client-side accounting of
 * closes; the server's request log records a watch when it opens).
 */
function countingClient(): { client: KubernetesClient; open: (match: (path: string) => boolean) => number } {
  const base = bed.admin;
  const streams = new Map<number, string>();
  let next = 0;
  const client = Object.create(base) as KubernetesClient;
  client.watch = (type, options) => {
    const stream = base.watch(type, options);
    const id = ++next;
    return (async function* () {
      streams.set(id, `${type.plural}/${options?.namespace ?? ''}?${options?.labelSelector ?? ''}`);
      try {
        yield* stream;
      } finally {
        streams.delete(id);
      }
    })();
  };
  return {
    client,
    open: (match) => [...streams.values()].filter(match).length,
  };
}

/** Requests of `verb` on secrets in `ns`; `selector`: with a label selector (true), without (false). */
function secretRequests(verb: string, ns: string, selector: boolean): number {
  return bed.server.requests.log.filter(
    (r) =>
      r.verb === verb &&
      r.resource === 'secrets' &&
      r.namespace === ns &&
      r.path.includes('labelSelector') === selector,
  ).length;
}

/** A reconciler of Secrets recording the data it saw per run. */
class SecretRecorder {
  runs: Array<{ name: string; data?: string }> = [];
  reconcile(secret: V1Secret): UpdateControl<V1Secret> {
    this.runs.push({ name: secret.metadata!.name!, data: secret.data?.v });
    return UpdateControl.noUpdate();
  }
  saw(name: string, data: string): boolean {
    return this.runs.some((r) => r.name === name && r.data === data);
  }
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('SharedInformers in the operator (issue 15 §5)', () => {
  it('three controllers of Secrets in one namespace make one list and one watch; another selector its own; one moving away leaves the others working; the last stop ends the watches', async () => {
    const ns = await newNamespace(bed.admin);
    const elsewhere = await newNamespace(bed.admin);
    const { client, open } = countingClient();
    const operator = bed.operator({ client, kubeConfig: undefined });
    const recorders = [0, 1, 2].map(() => new SecretRecorder());
    const controllers = recorders.map((r, i) =>
      operator.register(r, { name: `secrets-${i}`, resourceType: Secret, namespaces: [ns] }),
    );
    const selective = new SecretRecorder();
    operator.register(selective, {
      name: 'secrets-labelled',
      resourceType: Secret,
      namespaces: [ns],
      labelSelector: 'app=web',
    });
    await bed.admin.create(Secret, {
      metadata: { name: 'db', namespace: ns, labels: { app: 'web' } },
      data: { v: b64('1') },
    });
    await operator.start();
    await waitFor(
      () => recorders.every((r) => r.saw('db', b64('1'))) && selective.saw('db', b64('1')),
      'all four reconcile db',
    );
    await waitFor(() => open((p) => p.startsWith(`secrets/${ns}?`)) === 2, 'two watch streams open');
    await waitFor(
      () => secretRequests('watch', ns, false) === 1 && secretRequests('watch', ns, true) === 1,
      'the server sees the two watches',
    );
    expect(secretRequests('list', ns, false)).toBe(1);
    expect(secretRequests('list', ns, true)).toBe(1);

    // one controller moves to another namespace: it lets go of its share, the others keep theirs
    await controllers[0].changeNamespaces([elsewhere]);
    await bed.admin.mergePatch(Secret, new ResourceID('db', ns), { data: { v: b64('2') } });
    await waitFor(
      () => recorders[1].saw('db', b64('2')) && recorders[2].saw('db', b64('2')),
      'the others reconcile the change',
    );
    expect(recorders[0].saw('db', b64('2'))).toBe(false);
    // the shared informer was neither restarted nor re-listed by the move
    expect(secretRequests('list', ns, false)).toBe(1);
    expect(secretRequests('watch', ns, false)).toBe(1);
    expect(open((p) => p === `secrets/${ns}?`)).toBe(1);
    expect(open((p) => p === `secrets/${elsewhere}?`)).toBe(1);

    await operator.stop();
    await waitFor(() => open(() => true) === 0, 'every watch stream closed after the last user stopped');
    // exactly one watch per selection all along
    expect(secretRequests('watch', ns, false)).toBe(1);
    expect(secretRequests('watch', ns, true)).toBe(1);
  });

  it('[ES-01] three controllers each with an InformerEventSource on Secrets share one watch; each keeps its own index and own writes; a stopped source leaves the others their events', async () => {
    const ns = await newNamespace(bed.admin);
    const { client, open } = countingClient();
    const operator = bed.operator({ client, kubeConfig: undefined });

    class WidgetWithSecrets {
      runs: Array<{ widget: string; secrets: string[] }> = [];
      source!: InformerEventSource<V1Secret, Widget>;
      constructor(readonly index: number) {}
      prepareEventSources(context: EventSourceContext<Widget>): EventSources {
        this.source = new InformerEventSource<V1Secret, Widget>({ type: Secret }, context);
        return { secrets: this.source };
      }
      async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
        const secrets = context
          .getSecondaryResources(Secret)
          .map((s) => `${s.metadata!.name}=${s.metadata?.labels?.['seen-0'] ?? '-'}/${s.data?.v ?? ''}`)
          .sort();
        this.runs.push({ widget: w.metadata!.name!, secrets });
        // controller 0 labels its secrets: an own write for it, someone else's change for the others
        if (this.index === 0 && w.spec?.value === 'label') {
          for (const s of context.getSecondaryResources(Secret)) {
            await context.resourceOperations().serverSideApply({
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name: s.metadata!.name!, namespace: ns, labels: { 'seen-0': 'y' } },
            });
          }
        }
        return UpdateControl.noUpdate();
      }
      saw(pred: (secrets: string[]) => boolean): boolean {
        return this.runs.some((r) => pred(r.secrets));
      }
      /** Whether a run saw secret `name` with `data` (and, when given, label seen-0 `label`). */
      sawSecret(name: string, data: string, label?: string): boolean {
        return this.saw((secrets) =>
          secrets.some((s) => s.startsWith(`${name}=${label ?? ''}`) && s.endsWith(`/${data}`)),
        );
      }
    }
    const reconcilers = [0, 1, 2].map((i) => new WidgetWithSecrets(i));
    reconcilers.forEach((r, i) =>
      operator.register(r, { name: `widgets-${i}`, resourceType: Widget, namespaces: [ns] }),
    );
    const owner = await bed.admin.create(Widget, widget('w', ns, { value: 'plain' }));
    const ownerReferences = [
      {
        apiVersion: Widget.apiVersion,
        kind: Widget.kind,
        name: 'w',
        uid: owner.metadata!.uid!,
        controller: true,
      },
    ];
    await bed.admin.create(Secret, {
      metadata: { name: 'a', namespace: ns, ownerReferences },
      data: { v: b64('1') },
    });
    await operator.start();
    await waitFor(
      () => reconcilers.every((r) => r.sawSecret('a', b64('1'))),
      'every controller sees secret a',
    );
    await waitFor(() => open((p) => p.startsWith(`secrets/${ns}?`)) === 1, 'the watch stream open');
    await waitFor(() => secretRequests('watch', ns, false) === 1, 'the server sees the watch');
    expect(secretRequests('list', ns, false)).toBe(1);

    // a new secondary triggers every controller through the one watch
    await bed.admin.create(Secret, {
      metadata: { name: 'b', namespace: ns, ownerReferences },
      data: { v: b64('2') },
    });
    await waitFor(
      () =>
        reconcilers.every((r) =>
          r.saw((s) => s.includes(`a=-/${b64('1')}`) && s.includes(`b=-/${b64('2')}`)),
        ),
      'every controller sees a and b',
    );

    // controller 0 writes its label: it reads its write at once (own write), the others reconcile on it
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'label' } });
    await waitFor(() => reconcilers[0].runs.some((r) => r.secrets.length === 2), 'controller 0 ran');
    await waitFor(
      () =>
        reconcilers[0].source.list(ns).every((s) => s.metadata?.labels?.['seen-0'] === 'y') &&
        reconcilers
          .slice(1)
          .every((r) => r.source.list(ns).every((s) => s.metadata?.labels?.['seen-0'] === 'y')),
      'the label in every cache',
    );
    // controller 0's write is someone else's change for 1 and 2: they reconcile and read it
    await waitFor(
      () =>
        reconcilers.slice(1).every((r) => r.sawSecret('a', b64('1'), 'y') && r.sawSecret('b', b64('2'), 'y')),
      'controllers 1 and 2 reconcile with the label controller 0 wrote',
    );

    // one source stops: the others still get events and read a current cache
    await reconcilers[0].source.stop();
    await bed.admin.mergePatch(Secret, new ResourceID('b', ns), { data: { v: b64('4') } });
    await waitFor(
      () => reconcilers.slice(1).every((r) => r.sawSecret('b', b64('4'))),
      'controllers 1 and 2 see the change after 0 stopped its source',
    );
    expect(open((p) => p.startsWith(`secrets/${ns}?`))).toBe(1);
    expect(secretRequests('list', ns, false)).toBe(1);
    await operator.stop();
    await waitFor(() => open(() => true) === 0, 'every watch stream closed');
    expect(secretRequests('watch', ns, false)).toBe(1);
  });

  it('[ES-18] a shared first list that fails reports to every user: failFast users fail the start, lenient ones are unhealthy and recover together', async () => {
    const ns = await newNamespace(bed.admin);
    await bed.admin.create(Secret, { metadata: { name: 'x', namespace: ns }, data: { v: b64('1') } });
    // failFast (the default): the start fails, naming the cause
    bed.server.faults.failNext({
      verb: 'list',
      resource: 'secrets',
      namespace: ns,
      code: 403,
      message: 'no secrets for you',
    });
    const strict = bed.operator();
    [0, 1].forEach((i) =>
      strict.register(new SecretRecorder(), { name: `strict-${i}`, resourceType: Secret, namespaces: [ns] }),
    );
    const error = await strict.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventSourceStartError);
    expect(String((error as Error).message)).toContain('no secrets for you');
    expect(secretRequests('list', ns, false)).toBe(1);

    // lenient: both controllers report the failure, then both recover with the one informer
    bed.server.faults.failNext({
      verb: 'list',
      resource: 'secrets',
      namespace: ns,
      code: 403,
      times: 2,
      message: 'not yet',
    });
    const lenient = bed.operator({ stopOnInformerErrorDuringStartup: false });
    const recorders = [0, 1].map(() => new SecretRecorder());
    recorders.forEach((r, i) =>
      lenient.register(r, { name: `lenient-${i}`, resourceType: Secret, namespaces: [ns] }),
    );
    await lenient.start();
    const unhealthy = lenient.runtimeInfo.unhealthyEventSources();
    expect(unhealthy.map((u) => u.controller).sort()).toEqual(['lenient-0', 'lenient-1']);
    expect(unhealthy.every((u) => u.reason?.includes('not yet'))).toBe(true);
    await waitFor(() => lenient.runtimeInfo.allEventSourcesHealthy(), 'both healthy after the retry', 20_000);
    await waitFor(() => recorders.every((r) => r.saw('x', b64('1'))), 'both reconcile');
    // the strict operator's list, and three of the lenient one's (two refused, one through): one informer
    expect(secretRequests('list', ns, false)).toBe(4);
  });

  it('metadata-only InformerEventSources cache secondaries without data, map them by owner, and share one watch with each other, not with full ones', async () => {
    const ns = await newNamespace(bed.admin);
    const { client, open } = countingClient();
    const operator = bed.operator({ client, kubeConfig: undefined });
    class MetadataReconciler {
      seen: Array<{ names: string[]; withData: number }> = [];
      source!: InformerEventSource<KubernetesResource, Widget>;
      constructor(private readonly metadataOnly: boolean) {}
      prepareEventSources(context: EventSourceContext<Widget>): EventSources {
        this.source = new InformerEventSource<KubernetesResource, Widget>(
          { type: Secret, metadataOnly: this.metadataOnly },
          context,
        );
        return { secrets: this.source };
      }
      reconcile(w: Widget, context: Context<Widget>): UpdateControl<Widget> {
        const secrets = this.source.getSecondaryResources(w);
        this.seen.push({
          names: secrets.map((s) => s.metadata!.name!).sort(),
          withData: secrets.filter((s) => 'data' in s).length,
        });
        void context;
        return UpdateControl.noUpdate();
      }
    }
    const metadata = [new MetadataReconciler(true), new MetadataReconciler(true)];
    const full = new MetadataReconciler(false);
    [...metadata, full].forEach((r, i) =>
      operator.register(r, { name: `meta-${i}`, resourceType: Widget, namespaces: [ns] }),
    );
    const owner = await bed.admin.create(Widget, widget('w', ns));
    const ownerReferences = [
      {
        apiVersion: Widget.apiVersion,
        kind: Widget.kind,
        name: 'w',
        uid: owner.metadata!.uid!,
        controller: true,
      },
    ];
    await operator.start();
    await bed.admin.create(Secret, {
      metadata: { name: 's', namespace: ns, ownerReferences },
      data: { v: b64('x') },
    });
    await waitFor(
      () => [...metadata, full].every((r) => r.seen.some((run) => run.names.includes('s'))),
      'every controller maps the secret to its widget',
    );
    const last = (r: MetadataReconciler) => r.seen.filter((run) => run.names.includes('s')).at(-1)!;
    expect(metadata.map((r) => last(r).withData)).toEqual([0, 0]);
    expect(last(full).withData).toBe(1);
    expect(metadata[0].source.list(ns)[0]).toMatchObject({ kind: 'PartialObjectMetadata' });
    await waitFor(() => open((p) => p.startsWith(`secrets/${ns}?`)) === 2, 'one metadata and one full watch');
    expect(secretRequests('list', ns, false)).toBe(2);
  });
});
