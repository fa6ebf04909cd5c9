import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { EventSourceContext } from '../../../api/event-source-context.js';
import { ResourceTypes } from '../../../api/builtin-types.js';
import { ResourceID } from '../../../api/resource-id.js';
import type { KubernetesResource } from '../../../api/resource-type.js';
import type { KubernetesClient } from '../../../client/kubernetes-client.js';
import { AmbiguousSecondaryResourceError } from '../../../reconcile/errors.js';
import { DefaultContext } from '../../../reconcile/internal/default-context.js';
import type { DefaultContextOptions } from '../../../reconcile/internal/default-context.js';
import type { Event } from '../../event.js';
import type { ResourceEventSource } from '../../event-source.js';
import { FakeClock } from '../../__tests__/fake-clock.js';
import { CachingInboundEventSource } from '../inbound-event-sources.js';
import { PerResourcePollingEventSource } from '../per-resource-polling-event-source.js';
import { PollingEventSource } from '../polling-event-source.js';

// Review S9 of the event sources other than the controller's own: findings of defects a user hits,
// each checked against what JOSDK does (operator-framework/java-operator-sdk).

const CM = ResourceTypes.ConfigMap;

type Primary = KubernetesResource;

const primary = (name: string, uid: string, namespace = 'ns'): Primary => ({
  apiVersion: 'test.tosdk.io/v1',
  kind: 'Widget',
  metadata: { name, namespace, uid },
});

/** A context over a primary cache the test controls. */
function contextOver(primaries: Map<string, Primary>, clock: FakeClock): EventSourceContext<Primary> {
  return {
    primaryResourceType: { group: 'test.tosdk.io', version: 'v1', kind: 'Widget' } as never,
    client: {} as KubernetesClient,
    controllerName: 'review-s9',
    namespaces: [],
    primaryCache: {
      get: (id) => primaries.get(id.key),
      list: () => [...primaries.values()],
    },
    clock,
  };
}

const recorder = () => {
  const events: string[] = [];
  return { events, handler: { handleEvent: (e: Event) => void events.push(e.resourceId.key) } };
};

describe('review S9: external resource caching sources', () => {
  it('[FINDING S9-ES2] getSecondaryResource of a primary with several cached external resources throws instead of returning an arbitrary one', async () => {
    // JOSDK: ExternalResourceCachingEventSource.getSecondaryResource throws IllegalStateException
    // ("More than 1 secondary resource related to primary"); returning the first one hands the
    // reconciler a resource picked by insertion order
    const source = new CachingInboundEventSource<{ id: string }>({ idOf: (r) => r.id });
    await source.start();
    const id = new ResourceID('w', 'ns');
    source.handleResourcesEvent(id, [{ id: 'a' }, { id: 'b' }]);
    expect(() => source.getSecondaryResource(id)).toThrow(AmbiguousSecondaryResourceError);
    source.handleResourcesEvent(id, [{ id: 'b' }]);
    expect(source.getSecondaryResource(id)).toEqual({ id: 'b' });
    await source.stop();
  });

  it('[FINDING S9-ES7] a stopped (deregistered) caching inbound source neither caches pushes nor triggers reconciles', async () => {
    // JOSDK: handleResources/handleDelete return at once when the source is not running, as
    // SimpleInboundEventSource.propagateEvent does (ours drops there too)
    const { events, handler } = recorder();
    const source = new CachingInboundEventSource<{ id: string; v: string }>({ idOf: (r) => r.id });
    source.setEventHandler(handler);
    await source.start();
    const id = new ResourceID('w', 'ns');
    source.handleResourceEvent(id, { id: 'job', v: '1' });
    expect(events).toEqual(['ns/w']);
    await source.stop();
    source.handleResourceEvent(id, { id: 'job', v: '2' });
    source.handleResourcesEvent(id, [{ id: 'other', v: '1' }]);
    source.handleResourceDeleteEvent(id);
    expect(events).toEqual(['ns/w']);
    expect(source.getSecondaryResources(id)).toEqual([{ id: 'job', v: '1' }]);
  });
});

describe('review S9: per-resource polling', () => {
  it("[FINDING S9-ES4] a primary deleted and created again under its name is not served the deleted one's external resources", async () => {
    // JOSDK: PerResourcePollingEventSource.onResourceDeleted drops the primary's cache and its
    // "fetched" mark, so getSecondaryResources of the new primary fetches
    const clock = new FakeClock();
    const primaries = new Map<string, Primary>([['ns/db', primary('db', 'uid-1')]]);
    const external = new Map<string, string[]>([['uid-1', ['schema-of-the-old-db']]]);
    const source = new PerResourcePollingEventSource<string, Primary>(
      { periodMs: 60_000, fetcher: async (p) => external.get(p.metadata!.uid!) ?? [] },
      contextOver(primaries, clock),
    );
    source.setEventHandler(recorder().handler);
    await source.start();
    try {
      await clock.advance(60_000);
      expect(await source.getOrFetch(primaries.get('ns/db')!)).toEqual(['schema-of-the-old-db']);
      // the old primary is deleted (its cleanup dropped the schema), a new one of that name comes
      external.delete('uid-1');
      primaries.set('ns/db', primary('db', 'uid-2'));
      expect(await source.getOrFetch(primaries.get('ns/db')!)).toEqual([]);
      expect(source.getSecondaryResources(primaries.get('ns/db')!)).toEqual([]);
    } finally {
      await source.stop();
    }
  });

  it('[FINDING S9-ES5] a fetch that hangs for one primary does not hold up the polling of the others', async () => {
    // JOSDK: each primary is polled on its own schedule (a FetchingExecutor per primary), so a
    // slow external call for one primary delays only that primary; the class comment says so too
    const clock = new FakeClock();
    const primaries = new Map<string, Primary>([
      ['ns/slow', primary('slow', 'uid-s')],
      ['ns/fast', primary('fast', 'uid-f')],
    ]);
    let fastValue = 0;
    const source = new PerResourcePollingEventSource<string, Primary>(
      {
        periodMs: 1_000,
        fetchTimeoutMs: 60_000,
        fetcher: async (p) =>
          p.metadata!.name === 'slow' ? new Promise<never>(() => undefined) : [`v${++fastValue}`],
      },
      contextOver(primaries, clock),
    );
    const { events, handler } = recorder();
    source.setEventHandler(handler);
    await source.start();
    try {
      for (let i = 0; i < 5; i++) await clock.advance(1_000);
      // five periods passed: the fast primary's changing results came in every period
      expect(events.filter((e) => e === 'ns/fast').length).toBeGreaterThanOrEqual(4);
      expect(source.getSecondaryResources(primaries.get('ns/fast')!)[0]).not.toBe('v1');
    } finally {
      await source.stop();
    }
  });

  it('[FINDING S9-ES8] a per-resource polling source stopped and started again while a fetch runs fetches nothing after its final stop', async () => {
    const clock = new FakeClock();
    const primaries = new Map<string, Primary>([['ns/a', primary('a', 'uid-a')]]);
    let fetches = 0;
    let release: (() => void) | undefined;
    const source = new PerResourcePollingEventSource<string, Primary>(
      {
        periodMs: 1_000,
        fetcher: async () => {
          fetches++;
          await new Promise<void>((resolve) => (release = resolve));
          return ['x'];
        },
      },
      contextOver(primaries, clock),
    );
    source.setEventHandler(recorder().handler);
    await source.start();
    await clock.advance(1_000);
    expect(fetches).toBe(1);
    // stopped and started again while a fetch runs: one schedule, nothing after the final stop
    await source.stop();
    await source.start();
    release!();
    await clock.advance(0);
    await source.stop();
    const after = fetches;
    for (let i = 0; i < 5; i++) await clock.advance(1_000);
    expect(fetches).toBe(after);
    expect(clock.pending()).toEqual([]);
  });
});

describe('review S9: Context.getSecondaryResources with several sources of one kind', () => {
  it("[FINDING S9-ES3] the same secondary cached by two sources is returned in its newest version, not the first source's", () => {
    // JOSDK: DefaultContext.deduplicatedMap keeps, per ResourceID, the copy with the higher
    // resourceVersion (compareResourceVersions); ours kept the first source's, e.g. a lagging
    // informer's copy while the other source already serves our own write
    const owner = primary('w', 'uid-w');
    const cm = (rv: string, value: string): V1ConfigMap => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'ns', uid: 'uid-c', resourceVersion: rv },
      data: { value },
    });
    const fake = (name: string, found: V1ConfigMap[]) => ({
      name,
      source: {
        resourceType: CM,
        getSecondaryResources: () => found,
        setEventHandler: () => undefined,
        start: async () => undefined,
        stop: async () => undefined,
      } as unknown as ResourceEventSource,
    });
    const sources = [fake('lagging', [cm('9', 'old')]), fake('fresh', [cm('10', 'new')])];
    const context = new DefaultContext<Primary>({
      primary: owner,
      controllerName: 'review-s9',
      secondary: { sourcesFor: () => sources },
    } as unknown as DefaultContextOptions<Primary>);
    const found = context.getSecondaryResources(CM);
    expect(found.map((c) => c.data?.value)).toEqual(['new']);
  });
});

describe('review S9: Context.getSecondaryResources with a metadata-only source', () => {
  it('[FINDING S9-ES13] an object cached whole by one source and as metadata by another is returned whole', () => {
    // JOSDK has no metadata-only source of a kind (PartialObjectMetadata is a kind of its own there),
    // so its context never mixes the two; ours deduplicated an object both hold at one
    // resourceVersion to the first source's copy, which (from a metadataOnly source) lacks data
    const owner = primary('w', 'uid-w');
    const meta: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'ns', uid: 'uid-c', resourceVersion: '7' },
    };
    const whole: V1ConfigMap = { ...meta, data: { value: 'x' } };
    const fake = (name: string, found: V1ConfigMap[], metadataOnly: boolean) => ({
      name,
      source: {
        resourceType: CM,
        metadataOnly,
        getSecondaryResources: () => found,
        setEventHandler: () => undefined,
        start: async () => undefined,
        stop: async () => undefined,
      } as unknown as ResourceEventSource,
    });
    const sources = [fake('existence', [meta], true), fake('whole', [whole], false)];
    const context = new DefaultContext<Primary>({
      primary: owner,
      controllerName: 'review-s9',
      secondary: { sourcesFor: () => sources },
    } as unknown as DefaultContextOptions<Primary>);
    expect(context.getSecondaryResources(CM).map((c) => c.data?.value)).toEqual(['x']);
  });
});

describe('review S9: polling', () => {
  it('[FINDING S9-ES12] a poll naming a primary in several pairs caches all their resources and triggers nothing when they do not change', async () => {
    // JOSDK's fetcher answers a Map<ResourceID, Set<R>> (one entry per primary); ours takes any
    // iterable of [primary, resources] pairs (a row per external resource is the natural answer),
    // and each pair replaced the previous ones of its primary: only the last resource was cached,
    // and every poll flipped the cache back and forth, reconciling the primary twice per period
    const clock = new FakeClock();
    const { events, handler } = recorder();
    const rows = [
      { owner: 'w', id: 'db-1' },
      { owner: 'w', id: 'db-2' },
    ];
    const source = new PollingEventSource<{ owner: string; id: string }>({
      periodMs: 1_000,
      clock,
      idOf: (r) => r.id,
      fetcher: async () => rows.map((r) => [new ResourceID(r.owner, 'ns'), [r]] as const),
    });
    source.setEventHandler(handler);
    await source.start();
    try {
      const id = new ResourceID('w', 'ns');
      expect(
        source
          .getSecondaryResources(id)
          .map((r) => r.id)
          .sort(),
      ).toEqual(['db-1', 'db-2']);
      const first = events.length;
      for (let i = 0; i < 3; i++) await clock.advance(1_000);
      expect(source.pollCount).toBe(4);
      expect(events.length).toBe(first);
    } finally {
      await source.stop();
    }
  });
});
