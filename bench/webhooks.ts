// Webhook benchmark: what admission and conversion webhooks cost the in-memory API server.
// Creates/s (8 in flight) with no webhook configured (the baseline), with a configuration whose
// rules match nothing, with one validating webhook, and with a mutating plus a validating webhook;
// list of 500 custom resources at the storage version (baseline) and at a version converted by a
// conversion webhook. The webhooks are answered by @tosdk/nestjs/webhooks' review handler over HTTPS
// in this process, so each figure includes the webhook's own work.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeApiServer } from '@tosdk/apiserver';
import {
  developmentWebhookTls,
  getWebhookDeclaration,
  MutatingWebhook,
  ValidatingWebhook,
  ConversionWebhook,
  WebhookReviewHandler,
} from '@tosdk/nestjs/webhooks';
import type { KubernetesObject } from '@kubernetes/client-node';

const IN_FLIGHT = 8;
const WRITES = 1_500;
const LIST_SIZE = 500;

const ConfigMaps = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap' };
const Gadgets = { group: 'bench.example.com', version: 'v1', plural: 'gadgets', kind: 'Gadget' };

@ValidatingWebhook({ resource: ConfigMaps, name: 'allow.configmaps.bench.example.com' })
class Allow {
  validate(): void {}
}

@MutatingWebhook({ resource: ConfigMaps, name: 'label.configmaps.bench.example.com' })
class Label {
  mutate(o: KubernetesObject): void {
    o.metadata = { ...o.metadata, labels: { ...o.metadata?.labels, checked: 'yes' } };
  }
}

@ConversionWebhook({ resource: Gadgets, hub: 'v1' })
class GadgetConversion {
  toHub(o: KubernetesObject): KubernetesObject {
    return o;
  }
  fromHub(o: KubernetesObject): KubernetesObject {
    return o;
  }
}

async function webhookServer(): Promise<{ url: string; caBundle: string; close: () => void }> {
  const tls = await developmentWebhookTls();
  const handler = new WebhookReviewHandler(
    [Allow, Label, GadgetConversion].map((t) => ({
      declaration: getWebhookDeclaration(t)!,
      instance: new t(),
      className: t.name,
    })),
    { warn: () => undefined, error: () => undefined },
  );
  const server = https.createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void handler
        .handle(new URL(req.url ?? '/', 'https://x').pathname, Buffer.concat(chunks).toString())
        .then((a) => {
          const text = JSON.stringify(a.body);
          res.writeHead(a.status, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          });
          res.end(text);
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: Buffer.from(tls.caPem).toString('base64'),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function send(
  server: KubeApiServer,
  agent: http.Agent,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${server.tokenOf()}`,
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function createRate(server: KubeApiServer, prefix: string): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < WRITES) {
        const i = next++;
        const r = await send(server, agent, 'POST', '/api/v1/namespaces/default/configmaps', {
          metadata: { name: `${prefix}-${i}` },
          data: { a: 'b' },
        });
        if (r.status !== 201) throw new Error(`create answered ${r.status}: ${r.text}`);
      }
    }),
  );
  agent.destroy();
  return WRITES / (Number(process.hrtime.bigint() - started) / 1e9);
}

async function listTime(server: KubeApiServer, version: string): Promise<number> {
  const agent = new http.Agent({ keepAlive: true });
  const started = process.hrtime.bigint();
  for (let i = 0; i < 5; i++) {
    const r = await send(
      server,
      agent,
      'GET',
      `/apis/bench.example.com/${version}/namespaces/default/gadgets`,
    );
    if (r.status !== 200) throw new Error(`list answered ${r.status}: ${r.text}`);
  }
  agent.destroy();
  return Number(process.hrtime.bigint() - started) / 1e6 / 5;
}

function hook(name: string, path: string, hooks: { url: string; caBundle: string }): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: `${hooks.url}${path}`, caBundle: hooks.caBundle },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  };
}

export async function run(): Promise<void> {
  const hooks = await webhookServer();
  const server = await KubeApiServer.start({ host: '127.0.0.1', tls: false });
  const agent = new http.Agent({ keepAlive: true });
  try {
    await createRate(server, 'warm');
    const none = await createRate(server, 'none');
    const other = hook('other.bench.example.com', '/validate/allow.configmaps.bench.example.com', hooks);
    other.rules = [
      { operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] },
    ];
    await send(
      server,
      agent,
      'POST',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      { metadata: { name: 'a-other' }, webhooks: [other] },
    );
    const unmatched = await createRate(server, 'unmatched');
    await send(
      server,
      agent,
      'POST',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      {
        metadata: { name: 'b-allow' },
        webhooks: [
          hook('allow.configmaps.bench.example.com', '/validate/allow.configmaps.bench.example.com', hooks),
        ],
      },
    );
    const validating = await createRate(server, 'validating');
    await send(server, agent, 'POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      metadata: { name: 'c-label' },
      webhooks: [
        hook('label.configmaps.bench.example.com', '/mutate/label.configmaps.bench.example.com', hooks),
      ],
    });
    const both = await createRate(server, 'both');
    const ratio = (x: number): string => `${x.toFixed(0)}/s (${(x / none).toFixed(2)}x of no webhook)`;
    console.log(`creates/s, ${IN_FLIGHT} in flight: no webhook ${none.toFixed(0)}/s (baseline)`);
    console.log(`  a configuration that matches nothing: ${ratio(unmatched)}`);
    console.log(`  one validating webhook: ${ratio(validating)}`);
    console.log(`  a mutating and a validating webhook: ${ratio(both)}`);

    const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
    await send(server, agent, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'gadgets.bench.example.com' },
      spec: {
        group: 'bench.example.com',
        scope: 'Namespaced',
        names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
        versions: [
          { name: 'v1', served: true, storage: true, schema },
          { name: 'v2', served: true, storage: false, schema },
        ],
        conversion: {
          strategy: 'Webhook',
          webhook: {
            conversionReviewVersions: ['v1'],
            clientConfig: { url: `${hooks.url}/convert/gadgets.bench.example.com`, caBundle: hooks.caBundle },
          },
        },
      },
    });
    for (let i = 0; i < 200; i++) {
      if (
        (await send(server, agent, 'GET', '/apis/bench.example.com/v1/namespaces/default/gadgets')).status ===
        200
      )
        break;
      await new Promise((r) => setTimeout(r, 10));
    }
    for (let i = 0; i < LIST_SIZE; i++) {
      await send(server, agent, 'POST', '/apis/bench.example.com/v1/namespaces/default/gadgets', {
        apiVersion: 'bench.example.com/v1',
        kind: 'Gadget',
        metadata: { name: `g-${i}` },
        spec: { size: i },
      });
    }
    const stored = await listTime(server, 'v1');
    const converted = await listTime(server, 'v2');
    console.log(
      `list of ${LIST_SIZE} custom resources: storage version ${stored.toFixed(1)} ms (baseline), through the conversion webhook ${converted.toFixed(1)} ms (${(converted / stored).toFixed(2)}x)`,
    );
  } finally {
    agent.destroy();
    await server.stop();
    hooks.close();
  }
}
