// The widgets benchmark's API server process: `node widgets-server.js [--no-tls]`, driven over IPC
// by bench/widgets.ts. It runs @tosdk/apiserver, seeds the Widget CRD and N widgets in process
// (not through HTTP, so seeding costs no contender anything), counts requests, and says when every
// widget has its status and its ConfigMap (observed on the server's own change feed: no polling).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiServer } from '@tosdk/apiserver';
import type { Accounting, FromServer, ToServer, Widget } from './widgets-common.js';
import { desiredStatus, NAMESPACE, WIDGET } from './widgets-common.js';

const send = (m: FromServer): void => {
  process.send!(m);
};

const tls = !process.argv.includes('--no-tls');
const historySize = Number(process.env.TOSDK_WIDGETS_HISTORY ?? 250_000);
const server = await KubeApiServer.start({ port: 0, tls, historySize, requestLogSize: 1_000_000 });
const dir = mkdtempSync(join(tmpdir(), 'tosdk-widgets-'));
const kubeconfig = join(dir, 'kubeconfig');
await server.writeKubeconfig(kubeconfig);
const internal = server.internalClient();
let cpuAtReset = process.cpuUsage();
let resetAt = Date.now();

function seed(n: number): void {
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  internal.create('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', '', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${WIDGET.plural}.${WIDGET.group}` },
    spec: {
      group: WIDGET.group,
      scope: 'Namespaced',
      names: { plural: WIDGET.plural, singular: 'widget', kind: WIDGET.kind, listKind: 'WidgetList' },
      versions: [
        {
          name: WIDGET.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { value: { type: 'string' } } },
                status: open,
              },
            },
          },
        },
      ],
    },
  });
  internal.create('', 'v1', 'namespaces', '', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NAMESPACE },
  });
  for (let i = 0; i < n; i++) {
    internal.create(WIDGET.group, WIDGET.version, WIDGET.plural, NAMESPACE, {
      apiVersion: WIDGET.apiVersion,
      kind: WIDGET.kind,
      metadata: { name: `w-${i}`, namespace: NAMESPACE },
      spec: { value: `value-${i}` },
    });
  }
}

// convergence: every widget's status as desired and every ConfigMap present with its owner reference
let expected = 0;
const statusDone = new Set<string>();
const configMapDone = new Set<string>();
const statusOk = (w: Widget): boolean => {
  const want = desiredStatus(w);
  return w.status?.configMap === want.configMap && w.status.observed === want.observed;
};
const configMapOk = (cm: { metadata?: { ownerReferences?: unknown[] } }): boolean =>
  (cm.metadata?.ownerReferences?.length ?? 0) > 0;
const check = (): void => {
  if (expected > 0 && statusDone.size >= expected && configMapDone.size >= expected) {
    expected = 0;
    send({ type: 'converged' });
  }
};
internal.onChange((ev) => {
  if (expected === 0 || ev.namespace !== NAMESPACE || ev.type === 'DELETED') return;
  if (ev.resource === `${WIDGET.group}/${WIDGET.plural}`) {
    if (statusOk(JSON.parse(ev.json) as Widget)) statusDone.add(ev.name);
  } else if (ev.resource === '/configmaps') {
    if (configMapOk(JSON.parse(ev.json) as { metadata?: { ownerReferences?: unknown[] } }))
      configMapDone.add(ev.name);
  } else return;
  check();
});

function accounting(): Accounting {
  const writes: Record<string, number> = {};
  let writesTotal = 0;
  let requests = 0;
  let first = Infinity;
  let last = -Infinity;
  for (const r of server.requests.log) {
    if (r.namespace !== NAMESPACE && r.namespace !== undefined && r.namespace !== '') continue;
    requests++;
    if (!['create', 'update', 'patch', 'delete', 'deletecollection'].includes(r.verb)) continue;
    if (r.code >= 400) continue;
    const key = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
    writes[key] = (writes[key] ?? 0) + 1;
    writesTotal++;
    first = Math.min(first, r.time);
    last = Math.max(last, r.time);
  }
  const cpu = process.cpuUsage(cpuAtReset);
  return {
    writes,
    writesTotal,
    requests,
    serverCpuMs: (cpu.user + cpu.system) / 1000,
    firstWriteMs: writesTotal > 0 ? first - resetAt : -1,
    lastWriteMs: writesTotal > 0 ? last - resetAt : -1,
  };
}

process.on('message', (m: ToServer) => {
  try {
    switch (m.type) {
      case 'seed':
        seed(m.n);
        send({ type: 'seeded' });
        break;
      case 'expect': {
        expected = m.n;
        statusDone.clear();
        configMapDone.clear();
        for (const w of internal.list(WIDGET.group, WIDGET.version, WIDGET.plural, NAMESPACE))
          if (statusOk(w)) statusDone.add(String((w as Widget).metadata!.name));
        for (const cm of internal.list('', 'v1', 'configmaps', NAMESPACE))
          if (configMapOk(cm))
            configMapDone.add(String((cm as { metadata: { name: string } }).metadata.name));
        check();
        break;
      }
      case 'reset':
        server.requests.reset();
        cpuAtReset = process.cpuUsage();
        resetAt = Date.now();
        break;
      case 'accounting':
        send({ type: 'accounting', accounting: accounting() });
        break;
      case 'stop':
        void server.stop().then(() => {
          rmSync(dir, { recursive: true, force: true });
          process.exit(0);
        });
        break;
    }
  } catch (e) {
    send({ type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
});

send({
  type: 'listening',
  connection: {
    url: server.url,
    ...(tls ? { ca: server.caPem } : {}),
    token: server.tokenOf('admin'),
    kubeconfig,
  },
});
