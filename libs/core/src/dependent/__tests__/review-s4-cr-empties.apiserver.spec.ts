import { describe, expect, it, jest } from '@jest/globals';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext } from '../../api/event-source-context.js';
import type { EventSources, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import {
  apiServerSuite,
  Gadget,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../operator/__tests__/support.js';

/**
 * Adversarial review (session 4): the managed-fields matcher against the server's decoding of empty
 * maps. An applied `metadata.labels: {}` / `annotations: {}` is a leaf of our field set on every kind
 * (structured-merge-diff computes the set from the configuration as sent), and a custom resource's
 * metadata is decoded as an ObjectMeta on kube-apiserver (empty maps gone). An intent that did not
 * change must not be applied again on every reconcile, on a custom resource as on a ConfigMap.
 */
const suite = apiServerSuite();
jest.setTimeout(120_000);
const WAIT_MS = 30_000;

/** A Gadget (cluster-scoped custom resource) per widget, applied with empty labels and annotations. */
function intent(w: Widget): Gadget {
  return {
    apiVersion: Gadget.apiVersion,
    kind: Gadget.kind,
    metadata: { name: `g-${w.metadata!.namespace!}`, labels: {}, annotations: {} },
    spec: { value: w.spec?.value === 'fill' ? 'filled' : 'plain' },
  };
}

class GadgetApplier implements Reconciler<Widget> {
  readonly errors: unknown[] = [];
  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return {
      gadgets: new InformerEventSource<Gadget, Widget>(
        { type: Gadget, secondaryToPrimaryMapper: () => [] },
        context,
      ),
    };
  }
  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    try {
      await context.resourceOperations().serverSideApply(intent(w));
    } catch (error) {
      this.errors.push(error);
    }
    const observed = `${w.spec?.size ?? 0}/${w.spec?.value ?? ''}`;
    if (w.status?.observed === observed) return UpdateControl.noUpdate<Widget>();
    w.status = { ...w.status, observed };
    return UpdateControl.patchStatus(w);
  }
}

/** Runs the widget through four reconciles with one unchanged intent and counts the Gadget's applies. */
async function appliesOfUnchangedIntent(
  foreign: boolean,
): Promise<{ applies: number; rv: string | undefined }> {
  const ns = await newNamespace(suite.admin);
  const applier = new GadgetApplier();
  suite
    .operator()
    .register(applier, { resourceType: Widget, name: `gadget-empties-${foreign}`, namespaces: [ns] });
  const gid = new ResourceID(`g-${ns}`, undefined);
  if (foreign)
    await suite.admin.create(Gadget, {
      apiVersion: Gadget.apiVersion,
      kind: Gadget.kind,
      metadata: { name: `g-${ns}`, labels: { team: 'x' }, annotations: { note: 'y' } },
      spec: { value: 'plain' },
    });
  await suite.operators[0].start();
  const id = new ResourceID('w', ns);
  await suite.admin.create(Widget, widget('w', ns, { size: 0 }));
  const observed = async (v: string) => (await suite.admin.get(Widget, id))?.status?.observed === v;
  await waitFor(() => observed('0/'), 'first pass', WAIT_MS);
  const applies = () =>
    suite.server.requests.log.filter(
      (r) => r.resource === 'gadgets' && r.name === `g-${ns}` && r.verb === 'patch',
    ).length;
  expect(applies()).toBe(1);
  const rv = (await suite.admin.get(Gadget, gid))?.metadata?.resourceVersion;
  for (let i = 1; i <= 3; i++) {
    await suite.admin.mergePatch(Widget, id, { spec: { size: i } });
    await waitFor(() => observed(`${i}/`), `pass ${i}`, WAIT_MS);
  }
  expect(applier.errors).toEqual([]);
  const result = { applies: applies(), rv: (await suite.admin.get(Gadget, gid))?.metadata?.resourceVersion };
  // a real change is still sent
  await suite.admin.mergePatch(Widget, id, { spec: { value: 'fill' } });
  await waitFor(
    async () => (await suite.admin.get(Gadget, gid))?.spec?.value === 'filled',
    'the change applied',
    WAIT_MS,
  );
  return { applies: result.applies, rv: result.rv === rv ? rv : `changed from ${rv} to ${result.rv}` };
}

describe('review s4: an applied labels: {} / annotations: {} on a custom resource', () => {
  it('[DR-10] is skipped once applied: no further write while the intent is unchanged', async () => {
    const { applies } = await appliesOfUnchangedIntent(false);
    expect(applies).toBe(1);
  });

  // F4 (older; f8313df fixed it for built-in kinds only): where another manager set labels and
  // annotations, our leaf f:labels: {} / f:annotations: {} is read as owning their members, so every
  // reconcile sends a no-op apply (same resourceVersion). structured-merge-diff merges an applied {}
  // into a custom resource's map exactly as into a built-in's.
  it('[DR-10] F4: is skipped once applied where another manager set labels and annotations: no further write while the intent is unchanged', async () => {
    const { applies } = await appliesOfUnchangedIntent(true);
    expect(applies).toBe(1);
  });
});
