import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';

const CM = '/api/v1/namespaces/default/configmaps';
const COUNT = 400;

describe('watch backpressure', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false, maxWatchBufferBytes: 128 * 1024 });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[AS-WATCH-SLOW] a watcher that stops reading is ended, never skipped: what it got is a gap-free prefix and resuming yields the rest', async () => {
    const start = (await call(server, 'GET', CM)).json<{ metadata: { resourceVersion: string } }>().metadata
      .resourceVersion;
    const url = new URL(`${CM}?watch=1&resourceVersion=${start}`, server.url);
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(url, { headers: { authorization: `Bearer ${server.tokenOf()}` } }, resolve);
      req.on('error', reject);
      req.end();
    });
    res.pause();
    const payload = 'x'.repeat(32768);
    for (let i = 0; i < COUNT; i++) {
      const r = await call(server, 'POST', CM, { metadata: { name: `slow-${i}` }, data: { payload } });
      expect(r.status).toBe(201);
    }
    // read what was buffered; the server must have ended the stream
    const got: number[] = [];
    await new Promise<void>((resolve) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const ev = JSON.parse(buf.slice(0, i)) as { object: { metadata: { name: string } } };
          buf = buf.slice(i + 1);
          got.push(Number(ev.object.metadata.name.slice('slow-'.length)));
        }
      });
      res.on('end', resolve);
      res.on('close', resolve);
      res.resume();
    });
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(COUNT);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i));
    // resume from the last event received
    const last = (await call(server, 'GET', `${CM}/slow-${got.length - 1}`)).json<{
      metadata: { resourceVersion: string };
    }>();
    const w = rawWatch(server, `${CM}?watch=1&resourceVersion=${last.metadata.resourceVersion}`);
    await waitFor(() => w.events.length >= COUNT - got.length, 20_000);
    w.close();
    const rest = w.events.map((e) =>
      Number((e.object.metadata as { name: string }).name.slice('slow-'.length)),
    );
    expect([...got, ...rest]).toEqual(Array.from({ length: COUNT }, (_, i) => i));
  });
});
