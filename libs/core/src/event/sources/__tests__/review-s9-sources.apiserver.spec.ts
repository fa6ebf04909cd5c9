import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { EventSourceContext } from '../../../api/reconciler.js';
import { ResourceID } from '../../../api/resource-id.js';
import { EventSourceStartError } from '../../../operator/errors.js';
import {
  apiServerSuite,
  Gadget,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import type { EventSource } from '../../event-source.js';
import { InformerEventSource } from '../informer-event-source.js';
import { Mappers, primaryAnnotations } from '../mappers.js';
import { PollingEventSource } from '../polling-event-source.js';

// Review S9 of the event sources other than the controller's own (see review-s9-external-sources.spec.ts).

const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();
const { operators } = bed;

describe('review S9: mappers', () => {
  it('[FINDING S9-ES1] a namespaced secondary annotated with primaryAnnotations of a cluster-scoped primary reconciles that primary', async () => {
    // JOSDK: Mappers.fromMetadata takes the namespace from the namespace annotation when a key is
    // given (null when it is absent: a cluster-scoped primary); ours fell back to the secondary's
    // namespace, so the secondary mapped to `<its namespace>/<name>`, a primary that does not exist
    const ns = await newNamespace(bed.admin);
    const runs: string[] = [];
    bed.operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Gadget>) => [
          new InformerEventSource<V1ConfigMap, Gadget>(
            {
              type: CM,
              name: 'annotated',
              namespaces: [ns],
              secondaryToPrimaryMapper: Mappers.fromDefaultAnnotations<V1ConfigMap>(),
            },
            c,
          ),
        ],
        reconcile: (g: Gadget, c: Context<Gadget>) => {
          runs.push(`${g.metadata!.name!}:${c.getSecondaryResources(CM).length}`);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Gadget, name: 'review-s9-es1' },
    );
    const gadget = await bed.admin.create(Gadget, {
      apiVersion: Gadget.apiVersion,
      kind: Gadget.kind,
      metadata: { name: `g-${ns}` },
      spec: {},
    });
    await operators[0].start();
    await waitFor(() => runs.length >= 1, 'first reconcile');
    const before = runs.length;
    await bed.admin.create(CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: ns, annotations: primaryAnnotations(gadget) },
      data: { a: '1' },
    });
    await waitFor(() => runs.length > before, 'the annotated ConfigMap reconciles its Gadget', 5_000);
    // and is found as the Gadget's secondary
    expect(runs.at(-1)).toBe(`g-${ns}:1`);
    await bed.admin.delete(Gadget, new ResourceID(gadget.metadata!.name!));
  });
});

describe('review S9: polling at start', () => {
  it('[FINDING S9-ES6] a polling source whose first poll fails stops the operator start (stopOnInformerErrorDuringStartup on)', async () => {
    // JOSDK: PollingEventSource.start() calls getStateAndFillCache() and the fetcher's exception
    // propagates (EventSourceManager.startEventSource: "Couldn't start source"); ours started and
    // reconciled with an empty cache, which reads as "no external resources exist"
    const ns = await newNamespace(bed.admin);
    const seen: string[] = [];
    let polling!: PollingEventSource<string>;
    bed.operator().register(
      {
        prepareEventSources: () => ({
          external: (polling = new PollingEventSource<string>({
            periodMs: 60_000,
            fetcher: async () => {
              throw new Error('external API down');
            },
          })),
        }),
        reconcile: (w: Widget) => {
          seen.push(`${polling.getSecondaryResources(w).length}`);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'review-s9-es6', namespaces: [ns] },
    );
    await bed.admin.create(Widget, widget('w', ns));
    const error = await operators[0].start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EventSourceStartError);
    expect((error as Error).message).toContain('external API down');
    expect(seen).toEqual([]);
  });

  it('[S9-ES6] with stopOnInformerErrorDuringStartup off the operator starts, reports the source unhealthy and recovers with the next poll', async () => {
    const ns = await newNamespace(bed.admin);
    let down = true;
    const seen: string[] = [];
    let polling!: PollingEventSource<string>;
    const operator = bed.operator({ stopOnInformerErrorDuringStartup: false });
    operator.register(
      {
        prepareEventSources: () => ({
          external: (polling = new PollingEventSource<string>({
            periodMs: 30,
            fetcher: async () => {
              if (down) throw new Error('external API down');
              return new Map([[new ResourceID('w', ns), ['db']]]);
            },
          })),
        }),
        reconcile: (w: Widget) => {
          seen.push(polling.getSecondaryResources(w).join(','));
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'review-s9-es6b', namespaces: [ns] },
    );
    await bed.admin.create(Widget, widget('w', ns));
    await operator.start();
    expect(operator.runtimeInfo.unhealthyEventSources().map((u) => u.eventSource)).toEqual(['external']);
    down = false;
    await waitFor(() => seen.includes('db'), 'the next poll fills the cache and reconciles');
    expect(polling.health().healthy).toBe(true);
  });

  it('[FINDING S9-ES14] an event source (without a health method) that failed to start while stopOnInformerErrorDuringStartup is off is reported unhealthy', async () => {
    // JOSDK fails the start for any non-informer source (EventSourceManager.startEventSource:
    // "Couldn't start source"); ours goes on when the operator is lenient, but then reported the
    // source that never started healthy, so readiness probes passed while its events never came
    const ns = await newNamespace(bed.admin);
    const broken: EventSource = {
      name: 'webhook-listener',
      setEventHandler: () => undefined,
      start: () => Promise.reject(new Error('port 8443 in use')),
      stop: () => Promise.resolve(),
    };
    const operator = bed.operator({ stopOnInformerErrorDuringStartup: false });
    operator.register(
      { prepareEventSources: () => ({ webhook: broken }), reconcile: () => UpdateControl.noUpdate() },
      { resourceType: Widget, name: 'review-s9-es14', namespaces: [ns] },
    );
    await operator.start();
    const unhealthy = operator.runtimeInfo.unhealthyEventSources();
    expect(unhealthy.map((u) => u.eventSource)).toEqual(['webhook']);
    expect(unhealthy[0].reason).toContain('port 8443 in use');
    expect(operator.runtimeInfo.allEventSourcesHealthy()).toBe(false);
  });
});
