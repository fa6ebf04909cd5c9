import { describe, expect, it, jest } from '@jest/globals';
import type { V1Secret } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext } from '../../api/event-source-context.js';
import type { EventSources, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

/**
 * Adversarial review (session 5), found by the matcher oracle: the managed-fields matcher sanitizes
 * a Secret's intent (stringData folded into base64 data) with Buffer.from on every value, so an
 * intent whose stringData holds a null (which the API server accepts: a null map value decodes to
 * its zero value) makes every later reconciliation throw a raw TypeError from inside
 * resourceOperations().serverSideApply: the first apply (nothing cached) is sent, every one after
 * it fails, forever. Bad input should get a typed error naming the field, or be judged as the
 * server decodes it; a value the server accepts must not fail at all.
 */
const bed = apiServerSuite();
const SECRET = ResourceTypes.Secret;
const WAIT_MS = 20_000;
jest.setTimeout(60_000);

class SecretWriter implements Reconciler<Widget> {
  readonly errors: string[] = [];
  readonly runs: string[] = [];
  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return { secrets: new InformerEventSource<V1Secret, Widget>({ type: SECRET }, context) };
  }
  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    const { name, namespace, uid } = w.metadata!;
    this.runs.push(w.spec?.value ?? '');
    try {
      await context.resourceOperations().serverSideApply<V1Secret>({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: `${name}-secret`,
          namespace,
          ownerReferences: [
            { apiVersion: Widget.apiVersion, kind: Widget.kind, name: name!, uid: uid!, controller: true },
          ],
        },
        stringData: { token: w.spec?.value ?? '', optional: null as unknown as string },
      });
    } catch (e) {
      this.errors.push(`${(e as Error).name}: ${(e as Error).message}`);
    }
    return UpdateControl.noUpdate();
  }
}

describe('review s5: a Secret intent with a null stringData value', () => {
  it('[FINDING H24-2] a Secret applied with stringData { optional: null } (accepted by the server) reconciles again without an error', async () => {
    const ns = await newNamespace(bed.admin);
    const reconciler = new SecretWriter();
    const operator = bed.operator();
    operator.register(reconciler, {
      name: 'review-s5-secret-null',
      resourceType: Widget,
      namespaces: [ns],
    });
    await operator.start();
    const id = new ResourceID('w', ns);
    await bed.admin.create(Widget, widget('w', ns, { value: 'a' }));
    await waitFor(
      async () => (await bed.admin.get(SECRET, new ResourceID('w-secret', ns))) !== undefined,
      'the first apply created the Secret',
      WAIT_MS,
    );
    for (const value of ['b', 'c']) {
      await bed.admin.mergePatch(Widget, id, { spec: { value } });
      await waitFor(() => reconciler.runs.includes(value), `reconciled ${value}`, WAIT_MS);
    }
    const token = async () =>
      Buffer.from(
        (await bed.admin.get(SECRET, new ResourceID('w-secret', ns)))?.data?.token ?? '',
        'base64',
      ).toString();
    await waitFor(
      async () => reconciler.errors.length > 0 || (await token()) === 'c',
      'the last apply landed or failed',
      WAIT_MS,
    ).catch(() => undefined);
    expect(reconciler.errors).toEqual([]);
    expect(await token()).toBe('c');
  });
});
