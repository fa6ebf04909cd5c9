// Watch streams over plain HTTP/1.1 from a raw-bytes server (issue 15 §2, the lean transport): how
// events split over chunks and writes, how the stream ends, and how a refused watch is typed.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { Informer } from '../../informer/informer.js';
import { KubernetesApiError, KubernetesClientClosedError, KubernetesTransportError } from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import type { WatchEvent } from '../types.js';
import { chunk, jsonResponse, lastChunk, RawServer, response, waitFor } from './raw-server.js';
import type { RawRequest } from './raw-server.js';

const CM = ResourceTypes.ConfigMap;
const NS = 'ns1';

function configMap(name: string, data: Record<string, string> = { k: 'v' }, rv = '1'): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NS, resourceVersion: rv },
    data,
  };
}

/** One watch line (an event and its newline) as bytes. */
function line(type: string, object: unknown): Buffer {
  return Buffer.from(`${JSON.stringify({ type, object })}\n`);
}

const CHUNKED_HEAD = response(200, [
  ['Content-Type', 'application/json'],
  ['Transfer-Encoding', 'chunked'],
]);

const isWatch = (req: RawRequest) => req.query.get('watch') === 'true';

describe('watch streams over plain HTTP/1.1, against a raw-bytes server (case 10)', () => {
  let server: RawServer;
  const clients: KubernetesClient[] = [];
  const newClient = (requestTimeoutMs = 15_000) => {
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig(), { retry: false, requestTimeoutMs });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    server = await RawServer.startPlain();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await server.stop();
  });

  /** Collects the events until the iteration ends; the error it ended with, if any. */
  const drain = async (iterable: AsyncIterable<WatchEvent<V1ConfigMap>>) => {
    const events: Array<WatchEvent<V1ConfigMap>> = [];
    try {
      for await (const event of iterable) events.push(event);
      return { events, error: undefined as unknown };
    } catch (error) {
      return { events, error };
    }
  };
  const names = (events: Array<WatchEvent<V1ConfigMap>>) =>
    events.map((e) => `${e.type}:${(e.object as V1ConfigMap).metadata?.name ?? ''}`);
  /** A GET answered after the watch: the client still works. */
  const answerGets = (req: RawRequest) =>
    req.conn.write(jsonResponse(200, configMap(decodeURIComponent(req.path.split('/').at(-1)!))));

  it('one event split over many chunks and writes, many events in one chunk, a multi-byte character split between chunks, a last chunk split: every event exact, a clean end, the client still works', async () => {
    const text = 'größe ✓ 日本 🎉';
    const one = line('ADDED', configMap('split', { text }));
    const many = Buffer.concat([
      line('MODIFIED', configMap('m1', {}, '2')),
      line('MODIFIED', configMap('m2', {}, '3')),
      line('DELETED', configMap('m3', {}, '4')),
    ]);
    const last = line('ADDED', configMap('utf8', { text }, '5'));
    // split inside the 4-byte emoji of the last event
    const emoji = last.indexOf(Buffer.from('🎉'));
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.write(CHUNKED_HEAD);
      // the first event in five chunks, each its own write, one of them written a byte at a time
      const cuts = [0, 7, 20, 21, 60, one.length];
      for (let i = 0; i + 1 < cuts.length; i++) {
        const piece = chunk(one.subarray(cuts[i], cuts[i + 1]));
        if (i === 2) await req.conn.trickle(piece);
        else await req.conn.pieces([piece]);
      }
      await req.conn.pieces([chunk(many)]);
      await req.conn.pieces([chunk(last.subarray(0, emoji + 2)), chunk(last.subarray(emoji + 2))]);
      await req.conn.pieces(['0\r', '\n', '\r', '\n']);
    });
    const client = newClient();
    const { events, error } = await drain(client.watch(CM, { namespace: NS, resourceVersion: '1' }));
    expect(error).toBeUndefined();
    expect(names(events)).toEqual(['ADDED:split', 'MODIFIED:m1', 'MODIFIED:m2', 'DELETED:m3', 'ADDED:utf8']);
    expect((events[0].object as V1ConfigMap).data).toEqual({ text });
    expect((events[4].object as V1ConfigMap).data).toEqual({ text });
    expect((await client.get(CM, new ResourceID('after', NS)))?.metadata?.name).toBe('after');
  });

  it('a watch whose event lines are split across TCP writes at every byte (a single chunk written byte by byte)', async () => {
    const events = Buffer.concat([line('ADDED', configMap('a')), line('ADDED', configMap('b', { t: 'é' }))]);
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.trickle(Buffer.concat([CHUNKED_HEAD, chunk(events), lastChunk()]));
    });
    const client = newClient();
    const got = await drain(client.watch(CM, { namespace: NS }));
    expect(got.error).toBeUndefined();
    expect(names(got.events)).toEqual(['ADDED:a', 'ADDED:b']);
    expect((got.events[1].object as V1ConfigMap).data).toEqual({ t: 'é' });
  });

  // node:http reports a cut chunked stream as 'connection' (ECONNRESET, "aborted"); 'stream-ended'
  // is the other failure the informer takes for "cut, watch again" (list-watch-loop): either will do,
  // an unparsable-watch-event (the cut line parsed) or a clean end would not.
  it('one 3 MB event split over many chunks is delivered whole', async () => {
    const big = configMap('big', { blob: 'ß'.repeat(1_500_000) });
    const bytes = line('ADDED', big);
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.write(CHUNKED_HEAD);
      for (let at = 0; at < bytes.length; at += 65_000)
        await req.conn.write(chunk(bytes.subarray(at, at + 65_000)));
      await req.conn.write(Buffer.concat([chunk(line('DELETED', configMap('small'))), lastChunk()]));
    });
    const client = newClient();
    const { events, error } = await drain(client.watch(CM, { namespace: NS }));
    expect(error).toBeUndefined();
    expect(names(events)).toEqual(['ADDED:big', 'DELETED:small']);
    expect((events[0].object as V1ConfigMap).data?.blob).toBe(big.data!.blob);
  });

  it("a list and the watch after it go over one connection (the list's kept-alive socket carries the watch)", async () => {
    server.handle(async (req) => {
      if (!isWatch(req)) {
        await req.conn.write(
          jsonResponse(200, {
            kind: 'ConfigMapList',
            apiVersion: 'v1',
            metadata: { resourceVersion: '5' },
            items: [],
          }),
        );
        return;
      }
      await req.conn.write(
        Buffer.concat([CHUNKED_HEAD, chunk(line('ADDED', configMap('a', {}, '6'))), lastChunk()]),
      );
    });
    const client = newClient();
    const list = await client.list(CM, { namespace: NS });
    const { events } = await drain(
      client.watch(CM, { namespace: NS, resourceVersion: list.resourceVersion }),
    );
    expect(names(events)).toEqual(['ADDED:a']);
    expect(server.requests.map((r) => `${isWatch(r) ? 'watch' : 'list'}@${r.conn.id}`)).toEqual([
      'list@0',
      'watch@0',
    ]);
    expect(server.requests[1].query.get('resourceVersion')).toBe('5');
  });

  it('a slow consumer of a fast 6 MB stream (the socket paused and resumed) gets every event in order, then a clean end', async () => {
    const count = 3000;
    let issued = false;
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.write(CHUNKED_HEAD);
      // as fast as the socket takes them, 50 events a chunk
      const pending: Array<Promise<void>> = [];
      for (let i = 0; i < count; i += 50) {
        const lines: Buffer[] = [];
        for (let j = i; j < i + 50; j++)
          lines.push(line('MODIFIED', configMap(`e${j}`, { pad: 'x'.repeat(2000) }, String(j))));
        pending.push(req.conn.write(chunk(Buffer.concat(lines))));
      }
      pending.push(req.conn.write(lastChunk()));
      issued = true;
      await Promise.all(pending);
    });
    const client = newClient();
    const seen: string[] = [];
    for await (const event of client.watch(CM, { namespace: NS })) {
      seen.push((event.object as V1ConfigMap).metadata?.name ?? '');
      if (seen.length === 1) {
        // stalled while megabytes arrive (more than the client holds unread before it pauses)
        await waitFor(() => issued, 'the server to write everything');
        for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      }
      // a consumer slower than the socket: a turn of the event loop per ten events
      if (seen.length % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(seen).toHaveLength(count);
    expect(seen.every((name, i) => name === `e${i}`)).toBe(true);
    expect((await client.get(CM, new ResourceID('after', NS)))?.metadata?.name).toBe('after');
  });

  it('a watch whose last read both paused its socket (consumer behind) and completed the stream, left unread: the next request on that socket is answered', async () => {
    // the body in three writes: one event; ~1 MB of events, held unread by a stalled consumer (just
    // under what the client holds before it pauses the socket); then one ~60 KB event and the last
    // chunk in one read, which pauses the socket and completes the stream at once
    const releases: Array<() => void> = [];
    const step = (i: number) =>
      new Promise<void>((resolve) => {
        releases[i] = resolve;
      });
    const steps = [step(0), step(1)];
    const written = [false, false];
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.write(Buffer.concat([CHUNKED_HEAD, chunk(line('ADDED', configMap('first')))]));
      await steps[0];
      const part: Buffer[] = [];
      let bytes = 0;
      for (let i = 0; bytes < 1_000_000 - 2_200; i++) {
        const event = line('MODIFIED', configMap(`m${i}`, { pad: 'p'.repeat(2_000) }, String(i + 2)));
        part.push(chunk(event));
        bytes += event.length;
      }
      await req.conn.write(Buffer.concat(part));
      written[0] = true;
      await steps[1];
      await req.conn.write(
        Buffer.concat([
          chunk(line('ADDED', configMap('last', { pad: 'l'.repeat(60_000) }, '99999'))),
          lastChunk(),
        ]),
      );
      written[1] = true;
    });
    // a request on a socket parked paused fails after this
    const client = newClient(5_000);
    const turns = async () => {
      for (let i = 0; i < 30; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    const seen: string[] = [];
    for await (const event of client.watch(CM, { namespace: NS })) {
      seen.push((event.object as V1ConfigMap).metadata?.name ?? '');
      releases[0]();
      await waitFor(() => written[0], 'the megabyte');
      await turns();
      releases[1]();
      await waitFor(() => written[1], 'the last event');
      await turns();
      // the stream is complete, its events unread: the consumer walks away
      break;
    }
    expect(seen).toEqual(['first']);
    // a socket parked paused would never read this answer: the request would time out
    const after = await client.get(CM, new ResourceID('after', NS));
    expect(after?.metadata?.name).toBe('after');
  });

  it('breaking out of a watch loop closes its connection on the server side; the client goes on working', async () => {
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.write(
        Buffer.concat([
          CHUNKED_HEAD,
          chunk(Buffer.concat([line('ADDED', configMap('a')), line('ADDED', configMap('b'))])),
        ]),
      );
      // and the stream stays open
    });
    const client = newClient();
    for await (const event of client.watch(CM, { namespace: NS })) {
      expect((event.object as V1ConfigMap).metadata?.name).toBe('a');
      break;
    }
    await waitFor(() => server.connections[0].closed, 'the watch connection to close');
    expect((await client.get(CM, new ResourceID('after', NS)))?.metadata?.name).toBe('after');
  });

  it("a watch reset on the list's kept socket before any answer is sent once more on a fresh socket and delivers its events", async () => {
    server.handle(async (req) => {
      if (!isWatch(req)) {
        await req.conn.write(
          jsonResponse(200, {
            kind: 'ConfigMapList',
            apiVersion: 'v1',
            metadata: { resourceVersion: '5' },
            items: [],
          }),
        );
        return;
      }
      if (req.seq > 0) {
        // the server had closed the idle socket as the watch was written on it
        req.conn.reset();
        return;
      }
      await req.conn.write(
        Buffer.concat([CHUNKED_HEAD, chunk(line('ADDED', configMap('a', {}, '6'))), lastChunk()]),
      );
    });
    const client = newClient();
    const list = await client.list(CM, { namespace: NS });
    const { events, error } = await drain(
      client.watch(CM, { namespace: NS, resourceVersion: list.resourceVersion }),
    );
    expect(error).toBeUndefined();
    expect(names(events)).toEqual(['ADDED:a']);
    expect(server.requests.map((r) => `${isWatch(r) ? 'watch' : 'list'}@${r.conn.id}`)).toEqual([
      'list@0',
      'watch@0',
      'watch@1',
    ]);
  });

  it('a stream cut after whole events without the last chunk: the events, then a typed stream-ended (or connection) error; the next request works', async () => {
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.pieces([
        CHUNKED_HEAD,
        chunk(Buffer.concat([line('ADDED', configMap('a')), line('ADDED', configMap('b'))])),
      ]);
      req.conn.end();
    });
    const client = newClient();
    const { events, error } = await drain(client.watch(CM, { namespace: NS }));
    expect(names(events)).toEqual(['ADDED:a', 'ADDED:b']);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect(['stream-ended', 'connection']).toContain((error as KubernetesTransportError).failure);
    expect((error as Error).message).toContain(`127.0.0.1:${server.port}`);
    expect((await client.get(CM, new ResourceID('after', NS)))?.metadata?.name).toBe('after');
  });

  it('a stream cut in the middle of an event line (and of a chunk): the whole events, a typed transport error, no event made of the cut line', async () => {
    const cut = line('ADDED', configMap('cut-off'));
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.pieces([
        CHUNKED_HEAD,
        chunk(line('ADDED', configMap('whole'))),
        // a chunk that announces the whole line but brings only its first half
        chunk(cut).subarray(0, 6 + Math.floor(cut.length / 2)),
      ]);
      req.conn.end();
    });
    const client = newClient();
    const { events, error } = await drain(client.watch(CM, { namespace: NS }));
    expect(names(events)).toEqual(['ADDED:whole']);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect(['stream-ended', 'connection']).toContain((error as KubernetesTransportError).failure);
  });

  it('a stream cut at a chunk boundary in the middle of an event line: a typed transport error, no event made of the cut line', async () => {
    const cut = line('ADDED', configMap('cut-off'));
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.pieces([
        CHUNKED_HEAD,
        chunk(Buffer.concat([line('ADDED', configMap('whole')), cut.subarray(0, 30)])),
      ]);
      req.conn.end();
    });
    const client = newClient();
    const { events, error } = await drain(client.watch(CM, { namespace: NS }));
    expect(names(events)).toEqual(['ADDED:whole']);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect(['stream-ended', 'connection']).toContain((error as KubernetesTransportError).failure);
  });

  it('a stream with neither chunked nor Content-Length, ended by the server closing the socket, delivers its events', async () => {
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.pieces([
        response(200, [['Content-Type', 'application/json']]),
        line('ADDED', configMap('a')),
        line('ADDED', configMap('b')),
      ]);
      req.conn.end();
    });
    const client = newClient();
    const { events } = await drain(client.watch(CM, { namespace: NS }));
    expect(names(events)).toEqual(['ADDED:a', 'ADDED:b']);
    expect((await client.get(CM, new ResourceID('after', NS)))?.metadata?.name).toBe('after');
    // the close-delimited socket was not used for the request after it
    expect(server.requests.filter((r) => r.conn.id === 0)).toHaveLength(1);
  });

  for (const [where, cutAt] of [
    ['after a whole event line', 'line'],
    ['in the middle of an event line', 'mid-line'],
  ] as const) {
    it(`an informer whose watch is cut ${where} resumes at once from the last whole event, without a list or a backoff`, async () => {
      server.handle(async (req) => {
        if (!isWatch(req)) {
          await req.conn.write(
            jsonResponse(200, {
              kind: 'ConfigMapList',
              apiVersion: 'v1',
              metadata: { resourceVersion: '5' },
              items: [configMap('a', {}, '5')],
            }),
          );
          return;
        }
        const watches = server.requests.filter(isWatch).length;
        await req.conn.write(CHUNKED_HEAD);
        if (watches === 1) {
          const cut = line('ADDED', configMap('never', {}, '7'));
          await req.conn.pieces([
            chunk(line('ADDED', configMap('b', {}, '6'))),
            ...(cutAt === 'mid-line' ? [chunk(cut.subarray(0, 20))] : []),
          ]);
          req.conn.end();
          return;
        }
        // the resumed watch: one event, then open
        await req.conn.write(chunk(line('ADDED', configMap('c', {}, '8'))));
      });
      const client = newClient();
      // a failure would wait a minute before the next watch: the test would time out
      const informer = new Informer<V1ConfigMap>({
        client,
        type: CM,
        namespace: NS,
        backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 },
      });
      try {
        await informer.start();
        await waitFor(() => informer.list().length === 3, 'a, b and c in the cache');
        expect(
          informer
            .list()
            .map((c) => c.metadata?.name)
            .sort(),
        ).toEqual(['a', 'b', 'c']);
        const seen = server.requests.map((r) =>
          isWatch(r) ? `watch@${r.query.get('resourceVersion')}` : 'list',
        );
        expect(seen).toEqual(['list', 'watch@5', 'watch@6']);
      } finally {
        await informer.stop();
      }
    });
  }

  it('an ERROR event (410 Expired) in the stream comes as a typed API error value', async () => {
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.write(
        Buffer.concat([
          CHUNKED_HEAD,
          chunk(
            line('ERROR', {
              kind: 'Status',
              apiVersion: 'v1',
              status: 'Failure',
              reason: 'Expired',
              code: 410,
              message: 'too old resource version: 1 (5)',
            }),
          ),
          lastChunk(),
        ]),
      );
    });
    const client = newClient();
    const { events, error } = await drain(client.watch(CM, { namespace: NS, resourceVersion: '1' }));
    expect(error).toBeUndefined();
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('ERROR');
    const apiError = (events[0] as { error?: unknown }).error;
    expect(apiError).toBeInstanceOf(KubernetesApiError);
    expect((apiError as KubernetesApiError).isGone()).toBe(true);
  });

  for (const [status, reason, framing] of [
    [410, 'Expired', 'Content-Length'],
    [403, 'Forbidden', 'chunked'],
  ] as const) {
    it(`a watch answered ${status} with a JSON Status body (${framing}) throws a typed API error from the first next(); the next request works`, async () => {
      const body = JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason,
        code: status,
        message: `watch refused: ${reason}`,
      });
      server.handle(async (req) => {
        if (!isWatch(req)) return answerGets(req);
        await req.conn.write(
          framing === 'chunked'
            ? Buffer.concat([
                response(
                  status,
                  [
                    ['Content-Type', 'application/json'],
                    ['Transfer-Encoding', 'chunked'],
                  ],
                  '',
                  reason,
                ),
                chunk(body.slice(0, 10)),
                chunk(body.slice(10)),
                lastChunk(),
              ])
            : response(
                status,
                [
                  ['Content-Type', 'application/json'],
                  ['Content-Length', body.length],
                ],
                body,
                reason,
              ),
        );
      });
      const client = newClient();
      const { events, error } = await drain(client.watch(CM, { namespace: NS, resourceVersion: '1' }));
      expect(events).toEqual([]);
      expect(error).toBeInstanceOf(KubernetesApiError);
      expect((error as KubernetesApiError).status).toBe(status);
      expect((error as KubernetesApiError).reason).toBe(reason);
      expect((error as Error).message).toContain(`watch refused: ${reason}`);
      expect((await client.get(CM, new ResourceID('after', NS)))?.metadata?.name).toBe('after');
    });
  }

  it('aborting a watch ends its iteration cleanly and closes its connection on the server side (case 15)', async () => {
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.write(Buffer.concat([CHUNKED_HEAD, chunk(line('ADDED', configMap('a')))]));
      // then nothing: the stream stays open
    });
    const client = newClient();
    const stop = new AbortController();
    const events: string[] = [];
    const done = (async () => {
      for await (const event of client.watch(CM, { namespace: NS, signal: stop.signal })) {
        events.push(event.type);
        stop.abort();
      }
    })();
    await done;
    expect(events).toEqual(['ADDED']);
    await waitFor(() => server.connections[0].closed, 'the server to see the watch connection close');
  });

  it('client.close() ends a watch in flight with KubernetesClientClosedError and closes its connection (case 15)', async () => {
    server.handle(async (req) => {
      if (!isWatch(req)) return answerGets(req);
      await req.conn.write(Buffer.concat([CHUNKED_HEAD, chunk(line('ADDED', configMap('a')))]));
    });
    const client = newClient();
    let seen = 0;
    const result = drain(
      (async function* () {
        for await (const event of client.watch(CM, { namespace: NS })) {
          seen++;
          yield event;
        }
      })(),
    );
    await waitFor(() => seen === 1, 'the first event');
    client.close();
    const { events, error } = await result;
    expect(names(events)).toEqual(['ADDED:a']);
    expect(error).toBeInstanceOf(KubernetesClientClosedError);
    await waitFor(() => server.openConnections === 0, 'the server to see the connection close');
  });
});
