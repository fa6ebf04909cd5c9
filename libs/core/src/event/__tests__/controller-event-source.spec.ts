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
    expect(es.acceptsUpdate(w(1, { labels: { a: 'b' } }), w(1))).toBe(false);
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
    expect(user.es.acceptsUpdate(w(1, { labels: { go: 'yes' } }), w(1))).toBe(false);
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
