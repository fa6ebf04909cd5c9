import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, waitFor } from './http-helper.js';

/**
 * Opens `n` TCP connections to the server and leaves them in the TLS handshake (a few bytes of a
 * ClientHello, never completed); resolves once all are connected and the server has answered a
 * normal request after them (so it has accepted them).
 */
async function stuckInHandshake(
  server: KubeApiServer,
  n: number,
): Promise<{ sockets: Socket[]; closed: () => number }> {
  let closedCount = 0;
  const sockets = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect({ host: '127.0.0.1', port: server.port }, () => {
            // the start of a TLS record header of a handshake message, then nothing more
            s.write(Buffer.from([0x16, 0x03, 0x01]));
            resolve(s);
          });
          s.on('error', reject);
          s.on('close', () => closedCount++);
        }),
    ),
  );
  for (const s of sockets) s.on('error', () => undefined);
  expect((await call(server, 'GET', '/healthz', undefined, { token: null })).status).toBe(200);
  return { sockets, closed: () => closedCount };
}

describe('KubeApiServer restart and stop with connections mid-TLS-handshake', () => {
  const toStop: KubeApiServer[] = [];
  const toDestroy: Socket[] = [];
  afterEach(async () => {
    for (const s of toDestroy.splice(0)) s.destroy();
    await Promise.all(toStop.splice(0).map((s) => s.stop()));
  });

  it('restart() closes connections still in their handshake and serves again on the same port', async () => {
    const server = await KubeApiServer.start();
    toStop.push(server);
    const port = server.port;
    const { sockets, closed } = await stuckInHandshake(server, 5);
    toDestroy.push(...sockets);

    // without tracking these sockets, restart() waits for them until the TLS handshake timeout
    let restarted = false;
    const restart = server.faults.restart().then(() => (restarted = true));
    await waitFor(() => restarted, 20_000);
    await restart;
    // the server closed every one of them: none finishes its handshake on the old listener
    await waitFor(() => closed() === sockets.length, 20_000);
    expect(server.port).toBe(port);
    const res = await call(server, 'GET', '/api/v1/namespaces/default');
    expect(res.status).toBe(200);
  });

  it('stop() closes connections still in their handshake', async () => {
    const server = await KubeApiServer.start();
    const { sockets, closed } = await stuckInHandshake(server, 5);
    toDestroy.push(...sockets);
    let stopped = false;
    const stop = server.stop().then(() => (stopped = true));
    await waitFor(() => stopped, 20_000);
    await stop;
    await waitFor(() => closed() === sockets.length, 20_000);
    await expect(call(server, 'GET', '/healthz', undefined, { token: null })).rejects.toThrow(/ECONNREFUSED/);
  });
});
