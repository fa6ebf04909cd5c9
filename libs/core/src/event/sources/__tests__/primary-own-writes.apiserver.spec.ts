import { describe, expect, it } from '@jest/globals';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import { ResourceID } from '../../../api/resource-id.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import { CONTROLLER_EVENT_SOURCE_NAME } from '../../internal/controller-event-source.js';
import type { ControllerEventSource } from '../../internal/controller-event-source.js';

const bed = apiServerSuite();

function controllerSource(c: Context<Widget>): ControllerEventSource<Widget> {
  return c
    .eventSourceRetriever()
    .getEventSource(CONTROLLER_EVENT_SOURCE_NAME) as ControllerEventSource<Widget>;
}

interface Run {
  readonly resourceVersion: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
}

function record(runs: Run[], w: Widget): void {
  runs.push({
    resourceVersion: w.metadata!.resourceVersion!,
    labels: { ...w.metadata!.labels },
    annotations: { ...w.metadata!.annotations },
  });
}

describe('ControllerEventSource: own writes of the primary through resourceOperations()', () => {
  it('[ES-19] own label, annotation and spec writes of the primary do not reconcile again; a foreign change does', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const runs: Run[] = [];
    let source: ControllerEventSource<Widget> | undefined;
    bed.operator().register(
      {
        reconcile: async (w: Widget, c: Context<Widget>) => {
          record(runs, w);
          source = controllerSource(c);
          if (runs.length > 1) return UpdateControl.noUpdate();
          const ops = c.resourceOperations();
          const labelled = await ops.jsonMergePatchPrimary(w, { metadata: { labels: { own: 'merge' } } });
          await ops.serverSideApplyPrimary({
            apiVersion: Widget.apiVersion,
            kind: Widget.kind,
            metadata: { name: 'w', namespace: ns, annotations: { own: 'ssa' } },
          });
          const fresh = (await c.client.get(Widget, id))!;
          const updated = await ops.updatePrimary({ ...fresh, spec: { ...fresh.spec, value: 'update' } });
          await ops.jsonPatchPrimary(updated, [{ op: 'replace', path: '/spec/value', value: 'json' }]);
          expect(labelled.metadata?.labels?.own).toBe('merge');
          return UpdateControl.noUpdate();
        },
      },
      // not generation aware: without own-write filtering every one of these writes would reconcile
      { resourceType: Widget, name: 'own-primary', namespaces: [ns], generationAware: false },
    );
    await bed.operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(
      async () => (await bed.admin.get(Widget, id))?.spec?.value === 'json',
      'all own writes done',
    );
    await waitFor(() => source !== undefined && !source.hasPendingOwnWrite(id), 'own events consumed');
    expect(runs).toHaveLength(1);
    // a foreign change is the barrier: it comes after the own events on the watch
    await bed.admin.mergePatch(Widget, id, { metadata: { labels: { foreign: 'yes' } } });
    await waitFor(() => runs.length >= 2, 'the foreign change reconciles');
    const live = (await bed.admin.get(Widget, id))!;
    expect(runs).toHaveLength(2);
    expect(runs[1]).toEqual({
      resourceVersion: live.metadata!.resourceVersion,
      labels: { own: 'merge', foreign: 'yes' },
      annotations: { own: 'ssa' },
    });
    // create, four own writes, one foreign write: nothing else (no extra write by the framework)
    expect(bed.server.requests.writes({ namespace: ns, resource: 'widgets' })).toBe(6);
  });

  it('[ES-19] a foreign change that lands while an own primary write is in flight still reconciles', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const runs: Run[] = [];
    let inFlightSeen = false;
    let source: ControllerEventSource<Widget> | undefined;
    bed.operator().register(
      {
        reconcile: async (w: Widget, c: Context<Widget>) => {
          record(runs, w);
          source = controllerSource(c);
          if (runs.length > 1) return UpdateControl.noUpdate();
          // our patch waits at the server; someone else's update (PUT) gets through first
          bed.server.faults.addLatency({ verb: 'patch', resource: 'widgets', namespace: ns, ms: 400 });
          let ownDone = false;
          const own = c
            .resourceOperations()
            .jsonMergePatchPrimary(w, { metadata: { labels: { own: 'yes' } } })
            .finally(() => (ownDone = true));
          const current = (await bed.admin.get(Widget, id))!;
          await bed.admin.update(Widget, {
            ...current,
            metadata: { ...current.metadata, annotations: { foreign: 'during' } },
          });
          // the foreign event reached the informer while our write was still on its way
          await waitFor(() => source!.informer.get(id)?.metadata?.annotations?.foreign === 'during', 'seen');
          inFlightSeen = !ownDone;
          await own;
          bed.server.faults.clear();
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'own-primary-overlap', namespaces: [ns], generationAware: false },
    );
    await bed.operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => runs.length >= 2, 'the foreign change made during our write reconciles');
    expect(inFlightSeen).toBe(true);
    await waitFor(() => !source!.hasPendingOwnWrite(id), 'own events consumed');
    expect(runs[1].annotations).toEqual({ foreign: 'during' });
    // barrier: a second foreign change; our own label write did not add a reconciliation in between
    await bed.admin.mergePatch(Widget, id, { metadata: { annotations: { foreign: 'after' } } });
    await waitFor(() => runs.some((r) => r.annotations.foreign === 'after'), 'second foreign change');
    const live = (await bed.admin.get(Widget, id))!;
    expect(runs).toHaveLength(3);
    expect(runs[2]).toEqual({
      resourceVersion: live.metadata!.resourceVersion,
      labels: { own: 'yes' },
      annotations: { foreign: 'after' },
    });
  });
});
