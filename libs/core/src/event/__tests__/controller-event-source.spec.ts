import { describe, expect, it } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import type { CustomResource } from '../../api/resource-type.js';
import { defineResource } from '../../api/resource-type.js';
import type { ControllerConfigurationOptions } from '../../config/controller-configuration.js';
import { resolveControllerConfiguration } from '../../config/controller-configuration.js';
import { noopLogger } from '../../util/logger.js';
import type { Event } from '../event.js';
import { ControllerEventSource } from '../internal/controller-event-source.js';
import type { InformerEventHandler, PrimaryInformer } from '../internal/controller-event-source.js';
import { OwnWrites } from '../sources/own-write.js';
import { RelistWindow } from '../sources/relist-window.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';

type W = CustomResource<{ v?: string }>;
const W = defineResource<W>({ group: 'test.tosdk.io', version: 'v1', kind: 'W' });
const F = 'ws.test.tosdk.io/finalizer';

function source(options: ControllerConfigurationOptions<W> = {}, usesFinalizer = true) {
  let handler: InformerEventHandler<W> = {};
  const informer = {
    addEventHandler: (h: InformerEventHandler<W>) => ((handler = h), () => undefined),
    start: async () => undefined,
  } as unknown as PrimaryInformer<W>;
  const config = resolveControllerConfiguration(
    { reconcile: () => UpdateControl.noUpdate<W>() },
    { resourceType: W, name: 'w', ...options },
    {
      currentNamespace: 'default',
      useSSA: true,
    },
  );
  const es = new ControllerEventSource<W>(informer, config, usesFinalizer, noopLogger);
  const events: Event[] = [];
  es.setEventHandler({ handleEvent: (e) => void events.push(e) });
  return { es, events, start: () => es.start(), handler: () => handler };
}

const w = (generation: number | undefined, extra: Partial<NonNullable<W['metadata']>> = {}): W => ({
  apiVersion: W.apiVersion,
  kind: W.kind,
  metadata: { name: 'a', namespace: 'n', generation, ...extra },
});

describe('ControllerEventSource filters', () => {
  it('[EP-15] generation-aware: only a grown generation, a finalizer change or a deletion mark pass; off lets all pass', () => {
    const { es } = source();
    // the controller uses a finalizer: its resources carry it (see S13-EP4 for one without)
    const fin = { finalizers: [F] };
    expect(es.acceptsUpdate(w(1, { ...fin, labels: { a: 'b' } }), w(1, fin))).toBe(false);
    expect(es.acceptsUpdate(w(1, { labels: { a: 'b' } }), w(1))).toBe(true);
    expect(source({}, false).es.acceptsUpdate(w(1, { labels: { a: 'b' } }), w(1))).toBe(false);
    expect(es.acceptsUpdate(w(2), w(1))).toBe(true);
    expect(es.acceptsUpdate(w(1, { finalizers: [F] }), w(1))).toBe(true);
    expect(es.acceptsUpdate(w(1), w(1, { finalizers: [F] }))).toBe(true);
    expect(es.acceptsUpdate(w(1, { deletionTimestamp: new Date() }), w(1))).toBe(true);
    expect(es.acceptsUpdate(w(undefined), w(undefined))).toBe(true);
    expect(source({ generationAware: false }).es.acceptsUpdate(w(1), w(1))).toBe(true);
    expect(source({}, false).es.acceptsUpdate(w(1, { finalizers: [F] }), w(1))).toBe(false);
  });

  it('[EP-16] user filters combine with the defaults; with defaults off they alone decide', async () => {
    const user = source({ onUpdateFilter: (n) => n.metadata?.labels?.['go'] === 'yes' });
    expect(user.es.acceptsUpdate(w(2), w(1))).toBe(false);
    expect(
      user.es.acceptsUpdate(w(1, { finalizers: [F], labels: { go: 'yes' } }), w(1, { finalizers: [F] })),
    ).toBe(false);
    const alone = source({
      useDefaultEventFilters: false,
      onUpdateFilter: (n) => n.metadata?.labels?.['go'] === 'yes',
    });
    expect(alone.es.acceptsUpdate(w(1, { labels: { go: 'yes' } }), w(1))).toBe(true);
    const g = source({ genericFilter: (r) => r.metadata?.name !== 'a', onDeleteFilter: () => true });
    await g.start();
    g.handler().onAdd?.(w(1));
    g.handler().onDelete?.(w(1), false);
    expect(g.events).toHaveLength(0);
    const d = source({ onDeleteFilter: (_r, unknown) => !unknown, onAddFilter: () => true });
    await d.start();
    d.handler().onAdd?.(w(1));
    d.handler().onDelete?.(w(1), true);
    d.handler().onDelete?.(w(1), false);
    expect(d.events.map((e) => (e as unknown as { action: string }).action)).toEqual(['ADDED', 'DELETED']);
  });
});

/** A write taken as explaining any transition (these tests are about holding, re-lists and deletes). */
const EXPLAINED = { explains: () => true };

const rv = (version: string, labels: Record<string, string> = {}): W => ({
  ...w(1, { resourceVersion: version, labels }),
});

/** A controller event source on a fake informer, generation-unaware so every update would reconcile. */
function tracking() {
  let handler: InformerEventHandler<W> = {};
  let cached: W | undefined;
  const informer = {
    addEventHandler: (h: InformerEventHandler<W>) => ((handler = h), () => undefined),
    start: async () => undefined,
    get: () => cached,
    cacheIfNewer: (obj: W) => ((cached = obj), true),
  } as unknown as PrimaryInformer<W>;
  const relists = new RelistWindow();
  const client = relists.wrap({
    list: async () => ({ items: [], continue: undefined }),
    watch: () => undefined,
  } as unknown as KubernetesClient);
  const config = resolveControllerConfiguration(
    { reconcile: () => UpdateControl.noUpdate<W>() },
    { resourceType: W, name: 'w', generationAware: false },
    { currentNamespace: 'default', useSSA: true },
  );
  const es = new ControllerEventSource<W>(informer, config, false, noopLogger, relists);
  const events: string[] = [];
  es.setEventHandler({
    handleEvent: (e) =>
      void events.push(
        `${(e as { action?: string }).action}:${(e as { resource?: W }).resource?.metadata?.resourceVersion}`,
      ),
  });
  /** The informer delivers `obj` (and caches it, as the informer does before its handlers run). */
  const update = (obj: W) => {
    const old = cached ?? obj;
    cached = obj;
    handler.onUpdate?.(old, obj);
  };
  return {
    es,
    events,
    update,
    remove: (obj: W) => handler.onDelete?.(obj, false),
    relist: () => client.list(W),
    watch: () => client.watch(W, {}),
    start: () => es.start(),
  };
}

describe('ControllerEventSource own writes', () => {
  const id = new ResourceID('a', 'n');

  it('[ES-19] the event of an own write is dropped, later and earlier foreign events pass', async () => {
    const t = tracking();
    await t.start();
    await t.es.write(id, '1', async () => rv('2'), EXPLAINED);
    t.update(rv('2'));
    expect(t.events).toEqual([]);
    expect(t.es.hasPendingOwnWrite(id)).toBe(false);
    t.update(rv('3'));
    expect(t.events).toEqual(['UPDATED:3']);
  });

  it('[ES-19] events during an own write are held: a foreign one passes when the write returns, ours is dropped', async () => {
    const t = tracking();
    await t.start();
    let finish!: (value: W) => void;
    const writing = t.es.write(
      id,
      '1',
      () => new Promise<W>((resolve) => (finish = resolve)),
      OwnWrites.mergePatch<W>({ metadata: { labels: { own: 'yes' } } }),
    );
    t.update(rv('2', { foreign: 'yes' }));
    t.update(rv('3', { foreign: 'yes', own: 'yes' }));
    expect(t.events).toEqual([]);
    finish(rv('3', { foreign: 'yes', own: 'yes' }));
    await writing;
    expect(t.events).toEqual(['UPDATED:2']);
    expect(t.es.hasPendingOwnWrite(id)).toBe(false);
  });

  it('[ES-19] a failed own write suppresses nothing; events of a re-list and deletes always pass', async () => {
    const t = tracking();
    await t.start();
    await expect(
      t.es.write(
        id,
        '1',
        async () => {
          throw new Error('conflict');
        },
        EXPLAINED,
      ),
    ).rejects.toThrow('conflict');
    t.update(rv('2'));
    expect(t.events).toEqual(['UPDATED:2']);
    // our version reported by a re-list may carry a foreign change merged into it
    await t.es.write(id, '2', async () => rv('3'), EXPLAINED);
    await t.relist();
    t.update(rv('3'));
    expect(t.events).toEqual(['UPDATED:2', 'UPDATED:3']);
    t.watch();
    await t.es.write(id, '3', async () => rv('4'), EXPLAINED);
    t.remove(rv('4'));
    expect(t.events).toEqual(['UPDATED:2', 'UPDATED:3', 'DELETED:4']);
  });
});
