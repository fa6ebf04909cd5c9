import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

const CM = '/api/v1/namespaces/default/configmaps';

/** Sends `n` creates of fresh ConfigMaps and returns the status codes in order. */
async function creates(server: KubeApiServer, prefix: string, n: number): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call(server, 'POST', CM, {
      metadata: { name: `${prefix}-${i}` },
      data: { i: String(i) },
    });
    codes.push(res.status);
  }
  return codes;
}

describe('FaultInjector.failRate', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('fails about the given fraction of matching requests, with the chosen codes, and only those', async () => {
    const before = server.faults.injectedFailures;
    const fault = server.faults.failRate({
      verbs: ['create', 'patch'],
      rate: 0.3,
      code: [500, 429],
      seed: 7,
    });
    const codes = await creates(server, 'rate', 300);
    // reads never match a write-only fault
    for (let i = 0; i < 30; i++) expect((await call(server, 'GET', `${CM}/rate-0`)).status).not.toBe(500);
    fault.remove();

    const failed = codes.filter((c) => c !== 201);
    expect(new Set(failed)).toEqual(new Set([500, 429]));
    // 300 draws at 0.3: the mean is 90, this band is more than 5 standard deviations wide
    expect(failed.length).toBeGreaterThan(50);
    expect(failed.length).toBeLessThan(130);
    expect(fault.matched).toBe(300);
    expect(fault.injected).toBe(failed.length);
    expect(server.faults.injectedFailures - before).toBe(failed.length);
    // exactly the successful creates exist
    const list = (await call(server, 'GET', `${CM}?labelSelector=`)).json<{
      items: { metadata: { name: string } }[];
    }>();
    const names = new Set(list.items.map((i) => i.metadata.name).filter((n) => n.startsWith('rate-')));
    expect(names.size).toBe(300 - failed.length);

    // after remove() nothing fails any more
    expect(await creates(server, 'after', 40)).toEqual(Array(40).fill(201));
  });

  it('answers a Status with the code, and Retry-After on 429', async () => {
    const fault = server.faults.failRate({
      verb: 'create',
      rate: 1,
      code: 429,
      retryAfterSeconds: 3,
      message: 'slow down',
    });
    const res = await call(server, 'POST', CM, { metadata: { name: 'throttled' } });
    fault.remove();
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 429,
      reason: 'TooManyRequests',
      message: 'slow down',
    });
    expect((await call(server, 'GET', `${CM}/throttled`)).status).toBe(404);
  });

  it('replays: the same seed over the same request sequence fails the same requests', async () => {
    const run = async (prefix: string, seed: number): Promise<number[]> => {
      const f = server.faults.failRate({
        verb: 'create',
        resource: 'configmaps',
        rate: 0.25,
        code: [500, 503, 429],
        seed,
      });
      try {
        return await creates(server, prefix, 80);
      } finally {
        f.remove();
      }
    };
    const a = await run('seed-a', 99);
    const b = await run('seed-b', 99);
    const c = await run('seed-c', 100);
    expect(a.some((x) => x !== 201)).toBe(true);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('rate 0 fails nothing, rate 1 fails everything that matches, clear() ends rate faults', async () => {
    const none = server.faults.failRate({ verb: 'create', rate: 0, code: 500 });
    expect(await creates(server, 'zero', 20)).toEqual(Array(20).fill(201));
    none.remove();
    server.faults.failRate({ verb: 'create', namespace: 'kube-system', rate: 1, code: 503 });
    const other = await call(server, 'POST', '/api/v1/namespaces/kube-system/configmaps', {
      metadata: { name: 'x' },
    });
    expect(other.status).toBe(503);
    expect((await call(server, 'POST', CM, { metadata: { name: 'not-kube-system' } })).status).toBe(201);
    server.faults.clear();
    const again = await call(server, 'POST', '/api/v1/namespaces/kube-system/configmaps', {
      metadata: { name: 'x' },
    });
    expect(again.status).toBe(201);
  });

  it('"fail the next N" is checked first and still consumes exactly N', async () => {
    const rate = server.faults.failRate({ verb: 'create', rate: 0, code: 500 });
    server.faults.failNext({ verb: 'create', code: 409, times: 2 });
    expect(await creates(server, 'next', 4)).toEqual([409, 409, 201, 201]);
    expect(rate.matched).toBe(2);
    rate.remove();
  });

  it('rejects a rate outside 0..1 and codes outside 400..599 with a RangeError', () => {
    expect(() => server.faults.failRate({ rate: 1.5, code: 500 })).toThrow(RangeError);
    expect(() => server.faults.failRate({ rate: Number.NaN, code: 500 })).toThrow(/rate must be 0..1/);
    expect(() => server.faults.failRate({ rate: 0.1, code: [500, 200] })).toThrow(
      /code must be 400..599, got 200/,
    );
    expect(() => server.faults.failRate({ rate: 0.1, code: [] })).toThrow(RangeError);
  });
});
