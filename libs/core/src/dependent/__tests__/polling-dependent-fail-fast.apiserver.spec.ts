import { describe, expect, it } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import type { Context } from '../../api/context.js';
import type { ResourceID } from '../../api/resource-id.js';
import { EventSourceStartError } from '../../operator/errors.js';
import { PollingDependentResource } from '../polling-dependent-resource.js';
import type { PollingDependentOptions } from '../polling-dependent-resource.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

const suite = apiServerSuite();

/** A read-only polled dependent whose external system is down until `up` is set. */
class Polled extends PollingDependentResource<string, Widget> {
  up = false;
  constructor(options: Partial<PollingDependentOptions<string>> = {}) {
    super({ periodMs: 30, idOf: (s) => s, name: 'polled', ...options });
  }
  fetchResources(): Promise<Iterable<readonly [ResourceID, Iterable<string>]>> {
    if (!this.up) return Promise.reject(new Error('external API down'));
    return Promise.resolve([]);
  }
  protected desired(): string {
    return 'x';
  }
}

describe('PollingDependentResource: its first poll at start', () => {
  const register = (dependent: Polled, ns: string, seen: string[]) =>
    suite.operator().register(
      {
        reconcile: (w: Widget, c: Context<Widget>) => {
          seen.push(w.metadata!.name!);
          expect(c).toBeDefined();
          return UpdateControl.noUpdate();
        },
      },
      {
        resourceType: Widget,
        name: `polled-${ns}`,
        namespaces: [ns],
        workflow: { dependents: [{ dependent, name: 'polled' }] },
      },
    );

  it('fails the operator start when it fails (failFast, the default)', async () => {
    const ns = await newNamespace(suite.admin);
    register(new Polled(), ns, []);
    const error = await suite.operators[0].start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EventSourceStartError);
    expect((error as Error).message).toContain('external API down');
  });

  it('with failFast: false the operator starts and reconciles once a poll succeeds', async () => {
    const ns = await newNamespace(suite.admin);
    const dependent = new Polled({ failFast: false });
    const seen: string[] = [];
    register(dependent, ns, seen);
    await suite.admin.create(Widget, widget('w', ns));
    await suite.operators[0].start();
    dependent.up = true;
    await waitFor(() => seen.includes('w'), 'w reconciled');
  });
});
