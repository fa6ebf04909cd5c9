/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { KubeApiServer } from '../server.js';
import { call, waitFor } from './http-helper.js';

/**
 * Adversarial review (session 4): @tosdk/core (8f26ac4) takes a watch event's object for the echo of
 * its own write when the object's text equals the write answer's body byte for byte, and the
 * throughput work (issue 17) may serialise answers and events differently. Under concurrent writes of
 * every kind, the answer of each write must be exactly the object text of the watch event of that
 * resourceVersion, and every event must be the object a GET served at that version.
 */
const NS = 'echo4';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const DEP = `/apis/apps/v1/namespaces/${NS}/deployments`;

/** A watch that keeps the raw text of each event's object, by resourceVersion. */
function rawLines(server: KubeApiServer, path: string) {
  const byVersion = new Map<string, { type: string; text: string }>();
  const url = new URL(path, server.url);
  let buffer = '';
  const req = request(url, { headers: { authorization: `Bearer ${server.tokenOf()}` } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (!line) continue;
        const type = (JSON.parse(line) as { type: string }).type;
        const prefix = `{"type":"${type}","object":`;
        if (!line.startsWith(prefix) || !line.endsWith('}')) {
          byVersion.set(`bad:${byVersion.size}`, { type, text: line });
          continue;
        }
        const text = line.slice(prefix.length, -1);
        const rv = (JSON.parse(text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
        byVersion.set(rv, { type, text });
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return { byVersion, close: () => req.destroy() };
}

describe('review s4: a write answer is byte for byte the watch event of its version', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    expect((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('under 16 concurrent writes of every kind (create, apply, merge, strategic, JSON patch, update, delete), each answer equals its event', async () => {
    const from = (await call(server, 'GET', CM)).json<any>().metadata.resourceVersion;
    const cms = rawLines(server, `${CM}?watch=true&resourceVersion=${from}`);
    const deps = rawLines(server, `${DEP}?watch=true&resourceVersion=${from}`);
    const answers: Array<{ what: string; text: string }> = [];
    const write = async (what: string, method: string, path: string, body: unknown, contentType?: string) => {
      const res = await call(server, method, path, body, contentType ? { contentType } : {});
      if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
      answers.push({ what, text: res.text.trimEnd() });
    };
    const jobs: Array<() => Promise<void>> = [];
    for (let i = 0; i < 24; i++) {
      const name = `c${i % 6}`;
      const round = Math.floor(i / 6);
      jobs.push(async () => {
        if (round === 0)
          await write(`create ${name}`, 'POST', CM, {
            metadata: { name, labels: { r: '0' } },
            data: { a: '0' },
          });
        else if (round === 1)
          await write(
            `apply ${name}`,
            'PATCH',
            `${CM}/${name}?fieldManager=m${i}`,
            JSON.stringify({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name },
              data: { [`k${i}`]: 'v' },
            }),
            'application/apply-patch+yaml',
          );
        else if (round === 2)
          await write(
            `merge ${name}`,
            'PATCH',
            `${CM}/${name}`,
            { metadata: { labels: { r: null, s: '2' } }, data: { a: null } },
            'application/merge-patch+json',
          );
        else
          await write(
            `json ${name}`,
            'PATCH',
            `${CM}/${name}`,
            [{ op: 'add', path: '/data/j', value: String(i) }],
            'application/json-patch+json',
          );
      });
    }
    for (let i = 0; i < 4; i++) {
      jobs.push(async () => {
        await write(`create d${i}`, 'POST', DEP, {
          metadata: { name: `d${i}` },
          spec: {
            replicas: null,
            selector: { matchLabels: { app: `d${i}` } },
            template: {
              metadata: { labels: { app: `d${i}` } },
              spec: { containers: [{ name: 'c', image: 'nginx:1', env: [] }] },
            },
          },
        });
        await write(
          `smp d${i}`,
          'PATCH',
          `${DEP}/d${i}`,
          { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } },
          'application/strategic-merge-patch+json',
        );
        const got = (await call(server, 'GET', `${DEP}/d${i}`)).json<any>();
        got.spec.replicas = 3;
        await write(`update d${i}`, 'PUT', `${DEP}/d${i}`, got);
        await write(`delete d${i}`, 'DELETE', `${DEP}/d${i}`, undefined);
      });
    }
    // 16 in flight: each worker takes the next job; every job of a round runs after its round's creates
    const rounds = [
      jobs.slice(0, 6).concat(jobs.slice(24)),
      jobs.slice(6, 12),
      jobs.slice(12, 18),
      jobs.slice(18, 24),
    ];
    for (const round of rounds) {
      const queue = [...round];
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let job = queue.shift(); job; job = queue.shift()) await job();
        }),
      );
    }
    try {
      const events = (rv: string) => cms.byVersion.get(rv) ?? deps.byVersion.get(rv);
      await waitFor(
        () =>
          answers.every((a) => {
            const o = JSON.parse(a.text);
            return o.kind === 'Status' || events(o.metadata.resourceVersion) !== undefined;
          }),
        20_000,
      );
      const wrong: string[] = [];
      for (const a of answers) {
        const o = JSON.parse(a.text);
        if (o.kind === 'Status') continue;
        const event = events(o.metadata.resourceVersion)!;
        // a delete answers the object as deleted; its DELETED event may differ (kube: same object)
        if (event.text !== a.text)
          wrong.push(
            `${a.what} @${o.metadata.resourceVersion} (${event.type}):\n  answer ${a.text}\n  event  ${event.text}`,
          );
      }
      expect(answers).toHaveLength(24 + 16);
      expect(wrong).toEqual([]);
      expect([...cms.byVersion.keys(), ...deps.byVersion.keys()].filter((k) => k.startsWith('bad:'))).toEqual(
        [],
      );
    } finally {
      cms.close();
      deps.close();
    }
  });
  it('the same for a custom resource: creates, status merge patches and status applies, 16 in flight', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gauges.review.s4.io' },
      spec: {
        group: 'review.s4.io',
        scope: 'Namespaced',
        names: { kind: 'Gauge', plural: 'gauges', singular: 'gauge', listKind: 'GaugeList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        ],
      },
    };
    expect(
      (await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
    ).toBe(201);
    const G = `/apis/review.s4.io/v1/namespaces/${NS}/gauges`;
    await waitFor(async () => (await call(server, 'GET', G)).status === 200, 20_000);
    const from = (await call(server, 'GET', G)).json<any>().metadata.resourceVersion;
    const watch = rawLines(server, `${G}?watch=true&resourceVersion=${from}`);
    const answers: Array<{ what: string; text: string }> = [];
    const write = async (what: string, method: string, path: string, body: unknown, contentType?: string) => {
      const res = await call(server, method, path, body, contentType ? { contentType } : {});
      if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
      answers.push({ what, text: res.text.trimEnd() });
    };
    const names = Array.from({ length: 8 }, (_, i) => `g${i}`);
    await Promise.all(
      names.map((name) =>
        write(`create ${name}`, 'POST', G, {
          apiVersion: 'review.s4.io/v1',
          kind: 'Gauge',
          metadata: { name, labels: {}, annotations: { a: 'b' } },
          spec: { v: 0, empty: {}, list: [] },
        }),
      ),
    );
    const jobs: Array<() => Promise<void>> = [];
    for (let round = 1; round <= 4; round++)
      for (const name of names)
        jobs.push(() =>
          round % 2 === 0
            ? write(
                `status apply ${name}#${round}`,
                'PATCH',
                `${G}/${name}/status?fieldManager=op&force=true`,
                JSON.stringify({
                  apiVersion: 'review.s4.io/v1',
                  kind: 'Gauge',
                  metadata: { name },
                  status: { round, seen: null },
                }),
                'application/apply-patch+yaml',
              )
            : write(
                `status merge ${name}#${round}`,
                'PATCH',
                `${G}/${name}/status`,
                { status: { round, m: {} } },
                'application/merge-patch+json',
              ),
        );
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let job = jobs.shift(); job; job = jobs.shift()) await job();
      }),
    );
    try {
      await waitFor(
        () => answers.every((a) => watch.byVersion.has(JSON.parse(a.text).metadata.resourceVersion)),
        20_000,
      );
      const wrong = answers
        .filter((a) => watch.byVersion.get(JSON.parse(a.text).metadata.resourceVersion)!.text !== a.text)
        .map(
          (a) =>
            `${a.what}: answer ${a.text} event ${watch.byVersion.get(JSON.parse(a.text).metadata.resourceVersion)!.text}`,
        );
      expect(answers).toHaveLength(8 + 32);
      expect(wrong).toEqual([]);
    } finally {
      watch.close();
    }
  });
});
