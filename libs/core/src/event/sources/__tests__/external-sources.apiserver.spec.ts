import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { EventSourceContext } from '../../../api/reconciler.js';
import { ResourceID } from '../../../api/resource-id.js';
import { managedFieldsTransform } from '../../../cache/managed-fields.js';
import type { Operator } from '../../../operator/operator.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import type { LogFields, Logger } from '../../../util/logger.js';
import { FakeClock } from '../../__tests__/fake-clock.js';
import { AbstractEventSource } from '../abstract-event-source.js';
import { CachingInboundEventSource, SimpleInboundEventSource } from '../inbound-event-sources.js';
import { InformerEventSource } from '../informer-event-source.js';
import { PerResourcePollingEventSource } from '../per-resource-polling-event-source.js';
import { PollingEventSource } from '../polling-event-source.js';
import { ownedConfigMap } from './helpers.js';

const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();
const { operators } = bed;

class CaptureLogger implements Logger {
  lines: Array<{ level: string; message: string; fields: LogFields }> = [];
  constructor(
    private readonly bindings: LogFields = {},
    private readonly root?: CaptureLogger,
  ) {}
  private push(level: string, message: string, fields?: LogFields) {
    (this.root ?? this).lines.push({ level, message, fields: { ...this.bindings, ...fields } });
  }
  debug(m: string, f?: LogFields) {
    this.push('debug', m, f);
  }
  info(m: string, f?: LogFields) {
    this.push('info', m, f);
  }
  warn(m: string, f?: LogFields) {
    this.push('warn', m, f);
  }
  error(m: string, f?: LogFields) {
    this.push('error', m, f);
  }
  child(b: LogFields): Logger {
    return new CaptureLogger({ ...this.bindings, ...b }, this.root ?? this);
  }
}

/** An operator logging to `logger` (none without one). */
const operator = (logger?: Logger): Operator => bed.operator({ logger });

describe('polling, inbound and bounded sources', () => {
  it('[ES-03][ES-04][ES-14] a polling source (periodic, several secondary sources) reconciles on its own schedule; a failing or hanging poll marks it unhealthy and keeps the rest running', async () => {
    const ns = await newNamespace(bed.admin);
    let external = 'v1';
    let mode: 'ok' | 'fail' | 'hang' = 'ok';
    const seen: string[] = [];
    let polling!: PollingEventSource<string>;
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => ({
          cms: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, c),
          external: (polling = new PollingEventSource<string>({
            periodMs: 20,
            fetchTimeoutMs: 200,
            fetcher: async () => {
              if (mode === 'fail') throw new Error('external API down');
              if (mode === 'hang') return new Promise<never>(() => undefined);
              return new Map([[new ResourceID('w', ns), [external]]]);
            },
          })),
        }),
        reconcile: (_w: Widget, c: Context<Widget>) => {
          seen.push(
            `${polling.getSecondaryResource(new ResourceID('w', ns)) ?? '-'}|${c.getSecondaryResources(CM).length}`,
          );
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es14', namespaces: [ns] },
    );
    const w = await bed.admin.create(Widget, widget('w', ns));
    await bed.admin.create(CM, ownedConfigMap('c', ns, w));
    await operators[0].start();
    await waitFor(() => seen.length >= 1, 'initial');
    expect(seen[0]).toBe('v1|1');
    external = 'v2';
    await waitFor(() => seen.includes('v2|1'), 'a changed poll result reconciles');
    mode = 'fail';
    await waitFor(() => !polling.health().healthy, 'failing poll marks the source unhealthy');
    expect(polling.health().reason).toContain('external API down');
    expect(operators[0].runtimeInfo.unhealthyEventSources().map((u) => u.eventSource)).toEqual(['external']);
    mode = 'hang';
    await waitFor(
      () => polling.health().reason?.includes('did not settle') ?? false,
      'hanging poll times out',
    );
    // the rest of the operator works meanwhile
    await bed.admin.mergePatch(CM, new ResourceID('c', ns), { data: { x: 'y' } });
    const before = seen.length;
    await waitFor(() => seen.length > before, 'informer source still reconciles');
    mode = 'ok';
    external = 'v3';
    await waitFor(() => polling.health().healthy && seen.includes('v3|1'), 'recovered');
  });

  it('[ES-14] per-resource polling: the cache is checked (and filled) before the first poll, then each primary is polled', async () => {
    const ns = await newNamespace(bed.admin);
    const fetches: string[] = [];
    const values = new Map<string, string>([
      ['a', 'a1'],
      ['b', 'b1'],
    ]);
    let source!: PerResourcePollingEventSource<string, Widget>;
    const seen: string[] = [];
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          (source = new PerResourcePollingEventSource<string, Widget>(
            {
              name: 'per',
              periodMs: 30,
              fetcher: async (p) => {
                fetches.push(p.metadata!.name!);
                return [values.get(p.metadata!.name!)!];
              },
            },
            c,
          )),
        ],
        reconcile: async (w: Widget) => {
          const got = await source.getOrFetch(w);
          seen.push(`${w.metadata!.name}=${got.join(',')}`);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es14b', namespaces: [ns] },
    );
    await bed.admin.create(Widget, widget('a', ns));
    await bed.admin.create(Widget, widget('b', ns));
    await operators[0].start();
    await waitFor(() => seen.length >= 2, 'first reconciles');
    expect(seen.slice(0, 2).sort()).toEqual(['a=a1', 'b=b1']);
    values.set('b', 'b2');
    await waitFor(() => seen.includes('b=b2'), 'changed result of b reconciles b');
    expect(seen.filter((s) => s.startsWith('a='))).toEqual(['a=a1']);
    expect(fetches.filter((f) => f === 'a').length).toBeGreaterThan(1);
  });

  it('[ES-15] inbound sources fed by a webhook: a simple one triggers, a caching one keeps what was pushed', async () => {
    const ns = await newNamespace(bed.admin);
    const simple = new SimpleInboundEventSource({ name: 'hook' });
    const caching = new CachingInboundEventSource<{ id: string; state: string }>({
      name: 'pushed',
      idOf: (r) => r.id,
    });
    const seen: string[] = [];
    operator().register(
      {
        prepareEventSources: () => [simple, caching],
        reconcile: (w: Widget) => {
          const pushed = caching.getSecondaryResources(w).map((r) => r.state);
          seen.push(`${w.metadata!.name}:${pushed.join(',')}`);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es15', namespaces: [ns] },
    );
    await bed.admin.create(Widget, widget('w', ns));
    await operators[0].start();
    await waitFor(() => seen.length === 1, 'initial');
    const hook: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const msg = JSON.parse(body) as { name: string; state?: string };
        const id = new ResourceID(msg.name, ns);
        if (msg.state) caching.handleResourceEvent(id, { id: 'job', state: msg.state });
        else simple.propagateEvent(id);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`;
    try {
      await fetch(url, { method: 'POST', body: JSON.stringify({ name: 'w' }) });
      await waitFor(() => seen.length === 2, 'simple push reconciles');
      await fetch(url, { method: 'POST', body: JSON.stringify({ name: 'w', state: 'done' }) });
      await waitFor(() => seen.includes('w:done'), 'caching push reconciles with the pushed resource');
      const count = seen.length;
      // the same state again changes nothing: no event; a push for a missing primary is harmless
      await fetch(url, { method: 'POST', body: JSON.stringify({ name: 'w', state: 'done' }) });
      await fetch(url, { method: 'POST', body: JSON.stringify({ name: 'w' }) });
      await waitFor(() => seen.length === count + 1, 'barrier');
      expect(seen.slice(count)).toEqual(['w:done']);
    } finally {
      await new Promise((resolve) => hook.close(resolve));
    }
  });

  it('[ES-20] a bounded cache evicts cold secondaries and fetches them again on demand', async () => {
    const ns = await newNamespace(bed.admin);
    const owner = await bed.admin.create(Widget, widget('w', ns));
    await bed.admin.create(CM, ownedConfigMap('cold', ns, owner, { v: '1' }));
    const clock = new FakeClock();
    const context: EventSourceContext<Widget> = {
      primaryResourceType: Widget,
      client: bed.admin,
      controllerName: 'es20',
      namespaces: [ns],
      primaryCache: { get: () => undefined, list: () => [] },
      clock,
    };
    const source = new InformerEventSource<V1ConfigMap, Widget>(
      { type: CM, boundedCache: { ttlMs: 60_000 } },
      context,
    );
    await source.start();
    try {
      const id = new ResourceID('cold', ns);
      expect(source.get(id)?.data).toEqual({ v: '1' });
      await clock.advance(30_000);
      expect(source.get(id)).toBeDefined(); // a read renews it
      await clock.advance(59_000);
      expect(source.get(id)?.data).toEqual({ v: '1' });
      await clock.advance(60_001);
      expect(source.get(id)).toBeUndefined();
      expect(source.keys()).toEqual([`${ns}/cold`]); // still known, so events and mapping work
      const gets = bed.server.requests.count({
        verb: 'get',
        resource: 'configmaps',
        namespace: ns,
        name: 'cold',
      });
      expect((await source.fetch(id))?.data).toEqual({ v: '1' });
      expect(
        bed.server.requests.count({ verb: 'get', resource: 'configmaps', namespace: ns, name: 'cold' }),
      ).toBe(gets + 1);
      expect(source.get(id)?.data).toEqual({ v: '1' });
      expect(source.getSecondaryResources(owner)).toHaveLength(1);
      // evicted again: the primary's secondaries are fetched on demand
      await clock.advance(60_001);
      expect(source.getSecondaryResources(owner)).toHaveLength(0);
      expect((await source.fetchSecondaryResources(owner)).map((c) => c.data)).toEqual([{ v: '1' }]);
      expect(
        bed.server.requests.count({ verb: 'get', resource: 'configmaps', namespace: ns, name: 'cold' }),
      ).toBe(gets + 2);
    } finally {
      await source.stop();
    }
  });

  it('[ES-06] bad input: a throwing mapper, a foreign-kind owner and a secondary whose primary is gone are logged and leave the rest working', async () => {
    const ns = await newNamespace(bed.admin);
    const logger = new CaptureLogger();
    const seen: string[] = [];
    let source!: InformerEventSource<V1ConfigMap, Widget>;
    operator(logger).register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          (source = new InformerEventSource<V1ConfigMap, Widget>(
            {
              type: CM,
              name: 'cms',
              secondaryToPrimaryMapper: (cm) => {
                if (cm.data?.boom) throw new Error('mapper exploded');
                return (cm.metadata?.ownerReferences ?? [])
                  .filter((r) => r.kind === 'Widget')
                  .map((r) => new ResourceID(r.name, cm.metadata!.namespace));
              },
            },
            c,
          )),
        ],
        reconcile: (w: Widget) => {
          seen.push(w.metadata!.name!);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'bad', namespaces: [ns] },
    );
    const w = await bed.admin.create(Widget, widget('w', ns));
    await operators[0].start();
    await waitFor(() => seen.length === 1, 'initial');
    await bed.admin.create(CM, ownedConfigMap('boom', ns, w, { boom: 'yes' }));
    await bed.admin.create(CM, {
      ...ownedConfigMap('foreign', ns, w),
      metadata: {
        name: 'foreign',
        namespace: ns,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'x' }],
      },
    });
    await bed.admin.create(
      CM,
      ownedConfigMap('orphan', ns, { ...w, metadata: { ...w.metadata, name: 'gone', uid: 'gone-uid' } }),
    );
    await bed.admin.create(CM, ownedConfigMap('good', ns, w));
    await waitFor(() => seen.length === 2, 'the good secondary still reconciles');
    await waitFor(() => source.mapperFailureCount === 1, 'mapper failure counted');
    const failure = logger.lines.find((l) => l.message.includes('mapper threw'));
    expect(failure?.fields).toMatchObject({
      eventSource: 'cms',
      secondary: `${ns}/boom`,
      error: 'mapper exploded',
    });
    expect(
      logger.lines.some((l) => l.message.includes('not cached') && l.fields.primary === `${ns}/gone`),
    ).toBe(true);
    expect(source.health().healthy).toBe(true);
    expect(seen).toEqual(['w', 'w']);
  });
});

/** A custom event source: every tick triggers one named primary. */
class TickingEventSource extends AbstractEventSource {
  private timer: NodeJS.Timeout | undefined;
  ticks = 0;
  constructor(
    private readonly primary: ResourceID,
    private readonly everyMs: number,
  ) {
    super({ name: 'ticks' });
  }
  override async start(): Promise<void> {
    await super.start();
    this.timer = setInterval(() => {
      this.ticks++;
      this.emit(this.primary);
    }, this.everyMs);
  }
  override async stop(): Promise<void> {
    clearInterval(this.timer);
    await super.stop();
  }
}

describe('custom event sources', () => {
  it('[ES-04] a custom event source drives reconciles on its own schedule', async () => {
    const ns = await newNamespace(bed.admin);
    const ticking = new TickingEventSource(new ResourceID('w', ns), 25);
    let runs = 0;
    operator().register(
      {
        prepareEventSources: () => [ticking],
        reconcile: () => {
          runs++;
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es04', namespaces: [ns] },
    );
    await bed.admin.create(Widget, widget('w', ns));
    await operators[0].start();
    await waitFor(() => runs >= 4 && ticking.ticks >= 3, 'reconciles on every tick');
    expect(ticking.health()).toEqual({ healthy: true, status: 'running' });
    await operators.splice(0)[0].stop();
    expect(ticking.health().status).toBe('stopped');
  });
});

describe('managedFields pruning', () => {
  it('[ES-20] keeps only our own managedFields entries, without mutating the object', () => {
    const obj = {
      metadata: {
        name: 'x',
        managedFields: [{ manager: 'me' }, { manager: 'kubectl' }, { manager: 'other' }],
      },
    } as V1ConfigMap;
    const pruned = managedFieldsTransform<V1ConfigMap>('keepOwn', ['me'])!(obj);
    expect(pruned.metadata?.managedFields).toEqual([{ manager: 'me' }]);
    expect(obj.metadata?.managedFields).toHaveLength(3);
    expect(managedFieldsTransform<V1ConfigMap>('dropAll')!(obj).metadata?.managedFields).toBeUndefined();
    expect(managedFieldsTransform('keepAll')).toBeUndefined();
  });
});
