import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import type { LogFields, Logger } from '../../util/logger.js';
import { EventRecorder } from '../event-recorder.js';
import { EventResourceType } from '../kubernetes-event.js';
import type { KubernetesEvent } from '../kubernetes-event.js';

let server: KubeApiServer;
let admin: KubernetesClient;
const clients: KubernetesClient[] = [];
let page: KubernetesResource;

async function eventsIn(namespace: string, name?: string): Promise<KubernetesEvent[]> {
  const { items } = await admin.list(EventResourceType, { namespace });
  return name ? items.filter((e) => e.involvedObject.name === name) : items;
}

beforeAll(async () => {
  server = await KubeApiServer.start({
    port: 0,
    rbac: true,
    users: [{ name: 'no-events', token: 'no-events-token' }],
  });
  admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
  clients.push(admin);
  await admin.create(ResourceTypes.Namespace, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'web' },
  });
  page = await admin.create(ResourceTypes.ConfigMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'home', namespace: 'web' },
    data: { html: '<p>hi</p>' },
  });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await server?.stop();
});

describe('EventRecorder against the API server', () => {
  it('creates an Event the server accepts, then counts a repeat on the same Event', async () => {
    const recorder = new EventRecorder(admin, { component: 'webpage-operator', host: 'pod-1' });
    await recorder.warning(page, 'ProcessingError', 'backend unreachable', 'Reconcile');
    let events = await eventsIn('web', 'home');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'Warning',
      reason: 'ProcessingError',
      message: 'backend unreachable',
      action: 'Reconcile',
      count: 1,
      involvedObject: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'home',
        namespace: 'web',
        uid: page.metadata?.uid,
        resourceVersion: page.metadata?.resourceVersion,
      },
      source: { component: 'webpage-operator', host: 'pod-1' },
      reportingComponent: 'webpage-operator',
      reportingInstance: 'pod-1',
    });
    expect(events[0].metadata?.name).toMatch(/^home\.[0-9a-f]+$/);

    await recorder.warning(page, 'ProcessingError', 'backend unreachable', 'Reconcile');
    await recorder.warning(page, 'ProcessingError', 'backend unreachable', 'Reconcile');
    events = await eventsIn('web', 'home');
    expect(events).toHaveLength(1);
    expect(events[0].count).toBe(3);
    expect(Date.parse(events[0].lastTimestamp!)).toBeGreaterThanOrEqual(
      Date.parse(events[0].firstTimestamp!),
    );
  });

  it('records events about a cluster-scoped object in "default"', async () => {
    const recorder = new EventRecorder(admin, { component: 'ns-operator' });
    const ns = await admin.get(ResourceTypes.Namespace, new ResourceID('web'));
    await recorder.normal(ns!, 'Labelled', 'namespace labelled');
    const events = (await eventsIn('default')).filter((e) => e.involvedObject.kind === 'Namespace');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ involvedObject: { name: 'web' }, type: 'Normal', count: 1 });
  });

  it('is best-effort: a 403 resolves, creates nothing and logs what to grant', async () => {
    const lines: Array<{ message: string; fields?: LogFields }> = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message, fields) => lines.push({ message, fields }),
      error: (message, fields) => lines.push({ message, fields }),
      child: () => logger,
    };
    const denied = KubernetesClient.fromKubeConfig(server.kubeConfig('no-events'));
    clients.push(denied);
    const recorder = new EventRecorder(denied, { component: 'webpage-operator', logger });
    const before = (await eventsIn('web')).length;
    await expect(recorder.warning(page, 'Denied', 'should not be written')).resolves.toBeUndefined();
    expect(await eventsIn('web')).toHaveLength(before);
    expect(lines).toHaveLength(1);
    expect(lines[0].message).toContain('forbidden. Grant create and patch on events in namespace "web"');
    expect(String(lines[0].fields?.['error'])).toContain('403');
  });
});
