import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { EventSourceContext } from '../../../api/reconciler.js';
import { ResourceID } from '../../../api/resource-id.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import { CRUDKubernetesDependentResource } from '../../../dependent/crud-kubernetes-dependent-resource.js';
import { InformerEventSource } from '../informer-event-source.js';
import { Mappers, primaryAnnotations } from '../mappers.js';
import { ownedConfigMap } from './helpers.js';

// Review S9 of the event sources other than the controller's own (see review-s9-external-sources.spec.ts).

const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();
const { operators } = bed;

describe('review S9: informer event sources seen from a user', () => {
  it('[FINDING S9-ES9] a secondary annotated (primaryAnnotations) for a primary of another kind is not a secondary of a same-named primary of ours', async () => {
    // JOSDK: Mappers.fromDefaultAnnotations(primaryType) also reads io.javaoperatorsdk/primary-type
    // and maps a secondary annotated for another kind to nothing; ours read the name and namespace
    // only, so two controllers of different kinds annotating secondaries of one kind took each
    // other's secondaries whenever the primaries' names matched
    const ns = await newNamespace(bed.admin);
    const runs: string[] = [];
    bed.operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          new InformerEventSource<V1ConfigMap, Widget>(
            { type: CM, name: 'annotated', secondaryToPrimaryMapper: Mappers.fromDefaultAnnotations() },
            c,
          ),
        ],
        reconcile: (w: Widget, c: Context<Widget>) => {
          runs.push(
            `${w.metadata!.name}:${c
              .getSecondaryResources(CM)
              .map((m) => m.metadata!.name)
              .join(',')}`,
          );
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'review-s9-es9', namespaces: [ns] },
    );
    const w = await bed.admin.create(Widget, widget('x', ns));
    await operators[0].start();
    await waitFor(() => runs.length >= 1, 'first reconcile');
    // another operator's Deployment named x annotates its ConfigMap
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'x', namespace: ns },
    };
    await bed.admin.create(CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'of-the-deployment', namespace: ns, annotations: primaryAnnotations(deployment) },
    });
    await bed.admin.create(CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'of-the-widget', namespace: ns, annotations: primaryAnnotations(w) },
    });
    await waitFor(
      () => runs.some((r) => r.includes('of-the-widget')),
      "the widget's ConfigMap reconciles it",
    );
    expect(runs.at(-1)).toBe('x:of-the-widget');
  });

  it('[FINDING S9-ES10] with a bounded cache, event filters see the whole secondary, so a data-based update filter still triggers', async () => {
    // JOSDK: a bounded cache (BoundedItemStore) changes what is kept, not what the event handler
    // and the filters get; ours handed the filters the metadata skeleton the informer keeps, so a
    // filter reading data or spec saw undefined on both sides and dropped every update
    const ns = await newNamespace(bed.admin);
    const runs: string[] = [];
    bed.operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          new InformerEventSource<V1ConfigMap, Widget>(
            {
              type: CM,
              name: 'bounded',
              boundedCache: { ttlMs: 60_000 },
              onUpdateFilter: (n, o) => n.data?.v !== o.data?.v,
              genericFilter: (obj) => obj.data?.ignore !== 'yes',
            },
            c,
          ),
        ],
        reconcile: (w: Widget, c: Context<Widget>) => {
          runs.push(
            c
              .getSecondaryResources(CM)
              .map((m) => m.data?.v)
              .join(','),
          );
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'review-s9-es10', namespaces: [ns] },
    );
    const w = await bed.admin.create(Widget, widget('w', ns));
    await bed.admin.create(CM, ownedConfigMap('c', ns, w, { v: '1' }));
    await operators[0].start();
    await waitFor(() => runs.includes('1'), 'first reconcile');
    await bed.admin.mergePatch(CM, new ResourceID('c', ns), { data: { v: '2' } });
    await waitFor(() => runs.includes('2'), 'a change of data passes the update filter', 5_000);
    // the generic filter sees the data too: an ignored ConfigMap does not trigger
    const before = runs.length;
    await bed.admin.create(CM, ownedConfigMap('ignored', ns, w, { v: '3', ignore: 'yes' }));
    await bed.admin.mergePatch(CM, new ResourceID('c', ns), { data: { v: '4' } });
    await waitFor(() => runs.some((r) => r.includes('4')), 'the next change');
    expect(runs.slice(before).every((r) => r.includes('4'))).toBe(true);
  });

  it('[FINDING S9-ES11] Context.getSecondaryResource(s) of the kind of a workflow dependent whose activation condition is false answers nothing instead of throwing', async () => {
    // JOSDK (#2532, DefaultContext.isMissingEventSourceExpected): when no event source caches the
    // kind but the managed workflow has a dependent of it (its informer is registered only while
    // its activation condition holds), getSecondaryResource(s) answer empty; ours threw
    // NoEventSourceForTypeError, so a reconciler reading e.g. an OpenShift Route where the
    // condition is false failed on every attempt
    const ns = await newNamespace(bed.admin);
    class Settings extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
      constructor() {
        super({ resourceType: CM, name: 'settings' });
      }
      protected desired(p: Widget): V1ConfigMap {
        return { metadata: { name: `${p.metadata!.name!}-settings` }, data: { a: '1' } };
      }
    }
    const seen: string[] = [];
    const errors: string[] = [];
    bed.operator().register(
      {
        reconcile: (_w: Widget, c: Context<Widget>) => {
          try {
            seen.push(
              `${c.getSecondaryResource(CM)?.metadata?.name ?? 'none'}|${c.getSecondaryResources(CM).length}`,
            );
          } catch (error) {
            errors.push((error as Error).name);
            throw error;
          }
          return UpdateControl.noUpdate();
        },
      },
      {
        resourceType: Widget,
        name: 'review-s9-es11',
        namespaces: [ns],
        retry: { maxAttempts: 1, initialInterval: 10 },
        workflow: { dependents: [{ dependent: new Settings(), activationCondition: () => false }] },
      },
    );
    await bed.admin.create(Widget, widget('w', ns));
    await operators[0].start();
    await waitFor(() => seen.length + errors.length >= 1, 'first reconcile');
    expect(errors).toEqual([]);
    expect(seen[0]).toBe('none|0');
  });
});
