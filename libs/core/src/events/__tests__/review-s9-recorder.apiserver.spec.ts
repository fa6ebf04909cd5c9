import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import type { LogFields, Logger } from '../../util/logger.js';
import { EventRecorder } from '../event-recorder.js';
import { EventResourceType } from '../kubernetes-event.js';
import { FakeClock } from '../../operator/leader-election/__tests__/fake-clock.js';

let server: KubeApiServer;
let admin: KubernetesClient;

beforeAll(async () => {
  server = await KubeApiServer.start({ port: 0 });
  admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
});

afterAll(async () => {
  admin?.close();
  await server?.stop();
});

function recordingLogger(lines: Array<{ level: string; message: string; fields?: LogFields }>): Logger {
  const logger: Logger = {
    debug: (message, fields) => lines.push({ level: 'debug', message, fields }),
    info: (message, fields) => lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => lines.push({ level: 'error', message, fields }),
    child: () => logger,
  };
  return logger;
}

describe('EventRecorder review against the API server (session 9)', () => {
  // client-go tools/record/event.go recordEvent: a refusal with cause NamespaceTerminating is
  // expected while a namespace goes away; logged at V(5), never as a permission problem
  it('[FINDING S9-EV2] an Event refused because its namespace is terminating is not reported as missing RBAC', async () => {
    await admin.create(ResourceTypes.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'leaving', finalizers: ['test.tosdk.io/hold'] },
    });
    const page = await admin.create(ResourceTypes.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'home', namespace: 'leaving' },
    });
    await admin.delete(ResourceTypes.Namespace, new ResourceID('leaving'));
    const ns = await admin.get(ResourceTypes.Namespace, new ResourceID('leaving'));
    expect(ns?.metadata?.deletionTimestamp).toBeDefined();

    const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
    const recorder = new EventRecorder(admin, {
      component: 'webpage-operator',
      logger: recordingLogger(lines),
    });
    await expect(recorder.normal(page, 'CleanedUp', 'external state removed')).resolves.toBeUndefined();
    expect((await admin.list(EventResourceType, { namespace: 'leaving' })).items).toHaveLength(0);
    const refused = lines.filter((l) => l.message.startsWith('event not recorded'));
    expect(refused).toHaveLength(1);
    expect(refused[0].message).not.toContain('Grant');
    expect(refused[0].level).toBe('debug');
    expect(refused[0].message).toContain('being terminated');
  });

  // client-go names an Event <object>.<UnixNano> from a nanosecond clock; here the name came from a
  // millisecond clock made unique only within one recorder, and the operator has one recorder per
  // controller: two controllers recording about one object in the same millisecond (both failing on
  // a shared Deployment at start) made the same name, and the second Event was lost to a 409
  it('[FINDING S9-EV10] two recorders recording about one object in the same millisecond both get their Event', async () => {
    await admin.create(ResourceTypes.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shared' },
    });
    const page = await admin.create(ResourceTypes.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'home', namespace: 'shared' },
    });
    const clock = new FakeClock(Date.UTC(2026, 10, 24, 9, 0, 0));
    const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
    const logger = recordingLogger(lines);
    const first = new EventRecorder(admin, { component: 'pages', clock, logger });
    const second = new EventRecorder(admin, { component: 'backups', clock, logger });
    await Promise.all([
      first.warning(page, 'ReconcileFailed', 'pages: backend down'),
      second.warning(page, 'ReconcileFailed', 'backups: bucket missing'),
    ]);
    const events = (await admin.list(EventResourceType, { namespace: 'shared' })).items;
    expect(lines.filter((l) => l.message.startsWith('event not recorded'))).toEqual([]);
    expect(events.map((e) => e.message).sort()).toEqual(['backups: bucket missing', 'pages: backend down']);
  });
});
