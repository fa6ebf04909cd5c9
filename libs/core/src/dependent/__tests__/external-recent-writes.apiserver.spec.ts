import { describe, expect, it } from '@jest/globals';
import type { EventSourceContext } from '../../api/event-source-context.js';
import { UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import type { ExternalResourceCachingEventSource } from '../../event/sources/external-resource-caching-event-source.js';
import type { PerResourcePollingEventSource } from '../../event/sources/per-resource-polling-event-source.js';
import type { PollingEventSource } from '../../event/sources/polling-event-source.js';
import {
  PerResourcePollingDependentResource,
  PollingDependentResource,
} from '../polling-dependent-resource.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

const suite = apiServerSuite();

interface Row {
  id: string;
  value: string;
}

/** An external table; `writes` counts the operator's creates and updates. */
class Table {
  readonly rows = new Map<string, Row>();
  creates = 0;
  updates = 0;
}

const rowOf = (p: Widget): Row => ({ id: p.metadata!.name!, value: p.spec?.value ?? '' });

class PerResourceRows extends PerResourcePollingDependentResource<Row, Widget> {
  constructor(private readonly table: Table) {
    // polls only when the test says so (pollNow), never on its own during a test
    super({ periodMs: 600_000, idOf: (r) => r.id, name: 'rows' });
  }
  protected desired(p: Widget): Row {
    return rowOf(p);
  }
  fetchResources(p: Widget): Promise<Row[]> {
    const row = this.table.rows.get(p.metadata!.name!);
    return Promise.resolve(row ? [{ ...row }] : []);
  }
  create(desired: Row): Promise<Row> {
    this.table.creates++;
    this.table.rows.set(desired.id, { ...desired });
    return Promise.resolve({ ...desired });
  }
  update(_actual: Row, desired: Row): Promise<Row> {
    this.table.updates++;
    this.table.rows.set(desired.id, { ...desired });
    return Promise.resolve({ ...desired });
  }
  pollNow(): Promise<void> {
    return (this.source as PerResourcePollingEventSource<Row, Widget>).pollAll();
  }
  cached(): ExternalResourceCachingEventSource<Row> {
    return this.source!;
  }
}

class AllRows extends PollingDependentResource<Row, Widget> {
  constructor(
    private readonly table: Table,
    private readonly namespace: string,
  ) {
    super({ periodMs: 600_000, idOf: (r) => r.id, name: 'all-rows' });
  }
  protected desired(p: Widget): Row {
    return rowOf(p);
  }
  fetchResources(): Promise<Array<readonly [ResourceID, Row[]]>> {
    return Promise.resolve(
      [...this.table.rows.values()].map((r) => [new ResourceID(r.id, this.namespace), [{ ...r }]] as const),
    );
  }
  create(desired: Row): Promise<Row> {
    this.table.creates++;
    this.table.rows.set(desired.id, { ...desired });
    return Promise.resolve({ ...desired });
  }
  update(_actual: Row, desired: Row): Promise<Row> {
    this.table.updates++;
    this.table.rows.set(desired.id, { ...desired });
    return Promise.resolve({ ...desired });
  }
  pollNow(): Promise<void> {
    return (this.source as PollingEventSource<Row>).poll();
  }
  cached(): ExternalResourceCachingEventSource<Row> {
    return this.source!;
  }
}

class Observing implements Reconciler<Widget> {
  prepareEventSources(_context: EventSourceContext<Widget>) {
    return {};
  }
  reconcile(resource: Widget) {
    if (resource.status?.observed === resource.spec?.value) return UpdateControl.noUpdate<Widget>();
    resource.status = { observed: resource.spec?.value };
    return UpdateControl.patchStatus(resource);
  }
}

const observed = async (ns: string, value: string) =>
  (await suite.admin.get(Widget, new ResourceID('w', ns)))?.status?.observed === value;

type Rows = PerResourceRows | AllRows;

const variants: Array<[string, (table: Table, ns: string) => Rows]> = [
  ['PerResourcePollingDependentResource', (table) => new PerResourceRows(table)],
  ['PollingDependentResource', (table, ns) => new AllRows(table, ns)],
];

async function start(ns: string, dependent: Rows): Promise<void> {
  suite.operator().register(new Observing(), {
    resourceType: Widget,
    name: `recent-${dependent.name}`,
    namespaces: [ns],
    workflow: { dependents: [{ dependent }] },
  });
  await suite.operators[suite.operators.length - 1].start();
}

describe('external dependents cache their own writes in their polling source', () => {
  for (const [kind, make] of variants) {
    it(`[ES-14] ${kind}: a created resource dropped before the next poll is noticed by that poll and recreated`, async () => {
      const ns = await newNamespace(suite.admin);
      const table = new Table();
      const dependent = make(table, ns);
      await start(ns, dependent);
      await suite.admin.create(Widget, widget('w', ns, { value: 'a' }));
      await waitFor(() => observed(ns, 'a'), 'status a');
      await waitFor(() => table.creates === 1, 'row created');
      // the write is in the source's cache (JOSDK's handleRecentResourceCreate)
      expect(dependent.cached().getSecondaryResources(new ResourceID('w', ns))).toEqual([
        { id: 'w', value: 'a' },
      ]);

      table.rows.delete('w'); // someone drops it before the source polled once after the create
      await dependent.pollNow();
      await waitFor(() => table.creates === 2 && table.rows.get('w')?.value === 'a', 'row recreated', 15_000);
    });

    it(`[ES-14] ${kind}: an update reverted by someone else before the next poll is noticed and written again`, async () => {
      const ns = await newNamespace(suite.admin);
      const table = new Table();
      const dependent = make(table, ns);
      await start(ns, dependent);
      await suite.admin.create(Widget, widget('w', ns, { value: 'a' }));
      await waitFor(() => observed(ns, 'a'), 'status a');
      await dependent.pollNow(); // the source now holds what the table holds: value a
      await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
      await waitFor(() => observed(ns, 'b'), 'status b');
      await waitFor(() => table.updates === 1, 'row updated');
      // the update replaced the cached previous version (JOSDK's handleRecentResourceUpdate)
      expect(dependent.cached().getSecondaryResources(new ResourceID('w', ns))).toEqual([
        { id: 'w', value: 'b' },
      ]);

      table.rows.set('w', { id: 'w', value: 'a' }); // reverted before the source polled again
      await dependent.pollNow();
      await waitFor(
        () => table.updates === 2 && table.rows.get('w')?.value === 'b',
        'row written again',
        15_000,
      );
      expect(table.creates).toBe(1);
    });
  }
});
