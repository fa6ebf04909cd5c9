// TLS of the client's direct connections against a raw-bytes TLS server (issue 15 §2: the lean
// HTTP/1.1 transport opens node:tls sockets itself): certificate verification by the kubeconfig's
// CA, by IP address and by name (SNI), insecure-skip-tls-verify, client certificates, and HTTP
// framing split over TLS records.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClientClosedError, KubernetesTransportError } from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import {
  chunk,
  jsonResponse,
  lastChunk,
  makePki,
  nameOf,
  RawServer,
  rejection,
  response,
  waitFor,
} from './raw-server.js';
import type { KubeconfigOptions, RawRequest, RawTlsOptions, TestPki } from './raw-server.js';

const CM = ResourceTypes.ConfigMap;
const NS = 'ns1';

function configMap(name: string, data: Record<string, string> = { k: 'v' }): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NS, resourceVersion: '1' },
    data,
  };
}

const answerAll = (req: RawRequest) => req.conn.write(jsonResponse(200, configMap(nameOf(req))));

describe('TLS against a raw-bytes server (case 13)', () => {
  let pki: TestPki;
  /** Another CA and its server certificate: not signed by `pki`'s CA. */
  let stranger: TestPki;
  /** A CA whose server certificate names neither 127.0.0.1 nor localhost. */
  let misnamed: TestPki;
  const servers: RawServer[] = [];
  const clients: KubernetesClient[] = [];

  beforeAll(async () => {
    [pki, stranger, misnamed] = await Promise.all([
      makePki(),
      makePki(),
      makePki([{ type: 'dns', value: 'other.example' }]),
    ]);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });
  afterAll(() => undefined);

  const start = async (tls: RawTlsOptions) => {
    const server = await RawServer.startTls(tls);
    servers.push(server);
    server.handle(answerAll);
    return server;
  };
  const connect = (server: RawServer, kubeconfig: KubeconfigOptions) => {
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig(kubeconfig), {
      retry: false,
      requestTimeoutMs: 15_000,
    });
    clients.push(client);
    return client;
  };
  const get = (client: KubernetesClient, name: string) => client.get(CM, new ResourceID(name, NS));

  it('verifies the server by IP address (IP SAN 127.0.0.1, no SNI sent) and by name (DNS SAN localhost, SNI localhost); requests share one connection', async () => {
    const server = await start({ cert: pki.serverCert, key: pki.serverKey });
    const byIp = connect(server, { ca: pki.caPem });
    for (const name of ['a', 'b', 'c']) expect((await get(byIp, name))?.metadata?.name).toBe(name);
    expect(server.connections).toHaveLength(1);
    // an IP address is not a server name (RFC 6066): none is sent
    expect(server.connections[0].servername).toBe(false);

    const byName = connect(server, { ca: pki.caPem, host: 'localhost' });
    for (const name of ['d', 'e']) expect((await get(byName, name))?.metadata?.name).toBe(name);
    expect(server.connections).toHaveLength(2);
    expect(server.connections[1].servername).toBe('localhost');
  });

  it('a server certificate not signed by the kubeconfig CA: a typed tls error naming the server URL, nothing sent', async () => {
    const server = await start({ cert: stranger.serverCert, key: stranger.serverKey });
    const error = await rejection(get(connect(server, { ca: pki.caPem }), 'a'));
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('tls');
    expect((error as Error).message).toContain(`https://127.0.0.1:${server.port}`);
    expect(server.requests).toHaveLength(0);
  });

  it('a certificate signed by the CA but for another name (other.example): a typed tls error naming the server URL, by IP and by name', async () => {
    const server = await start({ cert: misnamed.serverCert, key: misnamed.serverKey });
    for (const host of ['127.0.0.1', 'localhost']) {
      const error = await rejection(get(connect(server, { ca: misnamed.caPem, host }), 'a'));
      expect(error).toBeInstanceOf(KubernetesTransportError);
      expect((error as KubernetesTransportError).failure).toBe('tls');
      expect((error as Error).message).toContain(`https://${host}:${server.port}`);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a server restarted on the same port with a certificate of another CA: the kept socket is gone, the next request is a typed tls error (no TLS session from before skips verification)', async () => {
    const first = await start({ cert: pki.serverCert, key: pki.serverKey });
    const port = first.port;
    const client = connect(first, { ca: pki.caPem });
    expect((await get(client, 'a'))?.metadata?.name).toBe('a');
    // a second connection, so that the client holds a TLS session to resume
    await Promise.all([get(client, 'b'), get(client, 'c')]);
    await first.stop();
    servers.splice(servers.indexOf(first), 1);
    const second = await RawServer.startTls({ cert: stranger.serverCert, key: stranger.serverKey }, port);
    servers.push(second);
    second.handle(answerAll);
    const error = await rejection(get(client, 'd'));
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('tls');
    // the message says the kubeconfig is stale and how to refresh it
    expect((error as Error).message).toContain(`https://127.0.0.1:${port}`);
    expect((error as Error).message).toMatch(/not signed by the certificate authority in the kubeconfig/);
    expect(second.requests).toHaveLength(0);
  });

  it('tls-server-name: sent as SNI and verified against, though the URL names 127.0.0.1; a name the certificate does not carry is refused', async () => {
    const server = await start({ cert: misnamed.serverCert, key: misnamed.serverKey });
    const client = connect(server, { ca: misnamed.caPem, tlsServerName: 'other.example' });
    expect((await get(client, 'a'))?.metadata?.name).toBe('a');
    expect((await get(client, 'b'))?.metadata?.name).toBe('b');
    expect(server.connections).toHaveLength(1);
    expect(server.connections[0].servername).toBe('other.example');
    // and a tls-server-name the certificate does not carry is refused
    const wrong = await rejection(
      get(connect(server, { ca: misnamed.caPem, tlsServerName: 'localhost' }), 'c'),
    );
    expect(wrong).toBeInstanceOf(KubernetesTransportError);
    expect((wrong as KubernetesTransportError).failure).toBe('tls');
  });

  it('insecure-skip-tls-verify accepts an unknown CA and a name mismatch', async () => {
    const server = await start({ cert: misnamed.serverCert, key: misnamed.serverKey });
    const client = connect(server, { insecure: true });
    expect((await get(client, 'a'))?.metadata?.name).toBe('a');
    expect((await get(client, 'b'))?.metadata?.name).toBe('b');
    expect(server.connections).toHaveLength(1);
  });

  it("presents the kubeconfig's client certificate when the server asks for one (mutual TLS)", async () => {
    const server = await start({ cert: pki.serverCert, key: pki.serverKey, clientCa: pki.caPem });
    const client = connect(server, {
      ca: pki.caPem,
      token: null,
      clientCert: pki.clientCert,
      clientKey: pki.clientKey,
    });
    expect((await get(client, 'a'))?.metadata?.name).toBe('a');
    expect((await get(client, 'b'))?.metadata?.name).toBe('b');
    expect(server.connections).toHaveLength(1);
    expect(server.connections[0].clientCertCN).toBe('raw-client');
    expect(server.requests[0].headers.some(([n]) => n.toLowerCase() === 'authorization')).toBe(false);
  });

  it('an exec plugin rotating the client certificate: new requests go on a new connection with the new certificate; a watch opened before goes on', async () => {
    const rotated = await makePki(undefined, 'rotated-client');
    const server = await start({
      cert: pki.serverCert,
      key: pki.serverKey,
      clientCa: [pki.caPem, rotated.caPem],
    });
    let watchConn: RawRequest['conn'] | undefined;
    server.handle(async (req) => {
      if (req.query.get('watch') === 'true') {
        watchConn = req.conn;
        await req.conn.write(
          Buffer.concat([
            response(200, [
              ['Content-Type', 'application/json'],
              ['Transfer-Encoding', 'chunked'],
            ]),
            chunk(`${JSON.stringify({ type: 'ADDED', object: configMap('before') })}\n`),
          ]),
        );
        return;
      }
      await answerAll(req);
    });
    const dir = mkdtempSync(join(tmpdir(), 'tosdk-exec-'));
    try {
      const credential = join(dir, 'credential.json');
      const writeCredential = (p: TestPki) =>
        writeFileSync(
          credential,
          JSON.stringify({
            apiVersion: 'client.authentication.k8s.io/v1beta1',
            kind: 'ExecCredential',
            // expired: client-node runs the plugin again every time (it keeps one without an
            // expiry for good)
            status: {
              clientCertificateData: p.clientCert,
              clientKeyData: p.clientKey,
              expirationTimestamp: '2000-01-01T00:00:00Z',
            },
          }),
        );
      writeCredential(pki);
      const client = KubernetesClient.fromKubeConfig(
        server.kubeConfig({
          ca: pki.caPem,
          token: null,
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1beta1',
              command: '/bin/cat',
              args: [credential],
              interactiveMode: 'Never',
            },
          },
        }),
        // credentials asked for again on every request
        { retry: false, requestTimeoutMs: 15_000, authRefreshMs: 0 },
      );
      clients.push(client);
      expect((await get(client, 'a'))?.metadata?.name).toBe('a');
      const names: string[] = [];
      const watching = (async () => {
        for await (const event of client.watch(CM, { namespace: NS }))
          names.push((event.object as V1ConfigMap).metadata?.name ?? '');
      })().catch((error: unknown) => error);
      await waitFor(() => names.length === 1, 'the first watch event');
      writeCredential(rotated);
      expect((await get(client, 'b'))?.metadata?.name).toBe('b');
      const byName = (name: string) => server.requests.find((r) => nameOf(r) === name)!.conn;
      expect(byName('a').clientCertCN).toBe('raw-client');
      expect(byName('b').clientCertCN).toBe('rotated-client');
      expect(byName('b')).not.toBe(byName('a'));
      // the watch, on a connection of the old certificate, is not cut by the rotation
      expect(watchConn?.closed).toBe(false);
      await watchConn!.write(
        Buffer.concat([
          chunk(`${JSON.stringify({ type: 'ADDED', object: configMap('after') })}\n`),
          lastChunk(),
        ]),
      );
      expect(await watching).toBeUndefined();
      expect(names).toEqual(['before', 'after']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without the client certificate a server that requires one refuses: a typed error naming the server URL, no request served', async () => {
    const server = await start({ cert: pki.serverCert, key: pki.serverKey, clientCa: pki.caPem });
    const error = await rejection(get(connect(server, { ca: pki.caPem }), 'a'));
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect(['tls', 'connection']).toContain((error as KubernetesTransportError).failure);
    expect((error as Error).message).toContain(`https://127.0.0.1:${server.port}`);
    expect(server.requests).toHaveLength(0);
  });

  it('an https URL to a plain HTTP server (it answers 400 to the ClientHello): a typed error naming the URL, no hang', async () => {
    const server = await RawServer.startPlain();
    servers.push(server);
    server.onConnection = (conn) => {
      conn.socket.once('data', () => {
        void conn.write('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        conn.end();
      });
    };
    const error = await rejection(get(connect(server, { ca: pki.caPem, scheme: 'https' }), 'a'));
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect(['tls', 'connection']).toContain((error as KubernetesTransportError).failure);
    expect((error as Error).message).toContain(`https://127.0.0.1:${server.port}`);
  });

  it('an http URL to a TLS server: a typed connection error naming the URL, no hang', async () => {
    const server = await start({ cert: pki.serverCert, key: pki.serverKey });
    const error = await rejection(get(connect(server, { scheme: 'http' }), 'a'));
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('connection');
    expect((error as Error).message).toContain(`http://127.0.0.1:${server.port}`);
    expect(server.requests).toHaveLength(0);
  });

  it('a TLS handshake the server never answers is a typed timeout after requestTimeoutMs, and the socket is closed', async () => {
    // accepts the TCP connection and says nothing
    const server = await RawServer.startPlain();
    servers.push(server);
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig({ ca: pki.caPem, scheme: 'https' }), {
      retry: false,
      requestTimeoutMs: 400,
    });
    clients.push(client);
    const error = await rejection(get(client, 'a'));
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('timeout');
    await waitFor(
      () => server.connections.length === 1 && server.connections[0].closed,
      'the socket to be closed',
    );
  });

  it('close() and an abort during a TLS handshake the server never answers: typed errors at once, the sockets closed', async () => {
    const server = await RawServer.startPlain();
    servers.push(server);
    const kubeConfig = server.kubeConfig({ ca: pki.caPem, scheme: 'https' });
    const aborting = KubernetesClient.fromKubeConfig(kubeConfig, { retry: false });
    const closing = KubernetesClient.fromKubeConfig(kubeConfig, { retry: false });
    clients.push(aborting, closing);
    const stop = new AbortController();
    const aborted = rejection(aborting.list(CM, { namespace: NS, signal: stop.signal }));
    const closed = rejection(get(closing, 'a'));
    await waitFor(() => server.connections.length === 2, 'both handshakes to start');
    stop.abort();
    closing.close();
    const abortError = await aborted;
    expect(abortError).toBeInstanceOf(KubernetesTransportError);
    expect((abortError as KubernetesTransportError).failure).toBe('aborted');
    expect(await closed).toBeInstanceOf(KubernetesClientClosedError);
    await waitFor(() => server.openConnections === 0, 'both sockets to close');
  });

  it('a plain server that accepts and never answers: a typed timeout after requestTimeoutMs, and the socket is closed', async () => {
    const server = await RawServer.startPlain();
    servers.push(server);
    server.handle(() => undefined);
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig(), {
      retry: false,
      requestTimeoutMs: 400,
    });
    clients.push(client);
    const error = await rejection(get(client, 'a'));
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect((error as KubernetesTransportError).failure).toBe('timeout');
    expect(server.requests).toHaveLength(1);
    await waitFor(() => server.connections[0].closed, 'the socket to be closed');
  });

  it('an answer written one byte per TLS record, and a chunked one split into records mid-size-line, are read; the socket is kept', async () => {
    const server = await start({ cert: pki.serverCert, key: pki.serverKey });
    const body = JSON.stringify(configMap('x', { text: 'größe ✓' }));
    server.handle(async (req) => {
      if (nameOf(req) === 'trickled') {
        await req.conn.trickle(
          Buffer.concat([
            response(200, [
              ['Content-Type', 'application/json'],
              ['Content-Length', Buffer.byteLength(body)],
            ]),
            Buffer.from(body),
          ]),
        );
        return;
      }
      const bytes = Buffer.concat([
        response(200, [
          ['Content-Type', 'application/json'],
          ['Transfer-Encoding', 'chunked'],
        ]),
        chunk(body.slice(0, 40), ';x=y'),
        chunk(body.slice(40)),
        lastChunk([['X-Trailer', 't']]),
      ]);
      await req.conn.trickle(bytes, 5);
    });
    const client = connect(server, { ca: pki.caPem });
    expect((await get(client, 'trickled'))?.data).toEqual({ text: 'größe ✓' });
    expect((await get(client, 'chunked'))?.data).toEqual({ text: 'größe ✓' });
    expect(server.connections).toHaveLength(1);
  });

  it('a watch over TLS: events split across records, a clean end; the server closing the idle TLS socket does not fail the next request', async () => {
    const server = await start({ cert: pki.serverCert, key: pki.serverKey });
    const lines = Buffer.from(
      [configMap('a'), configMap('b', { t: '日本' })]
        .map((object) => `${JSON.stringify({ type: 'ADDED', object })}\n`)
        .join(''),
    );
    server.handle(async (req) => {
      if (req.query.get('watch') === 'true') {
        await req.conn.write(
          response(200, [
            ['Content-Type', 'application/json'],
            ['Transfer-Encoding', 'chunked'],
          ]),
        );
        await req.conn.trickle(Buffer.concat([chunk(lines), lastChunk()]), 7);
        return;
      }
      await answerAll(req);
      if (nameOf(req) === 'then-closed') req.conn.end();
    });
    const client = connect(server, { ca: pki.caPem });
    const names: string[] = [];
    for await (const event of client.watch(CM, { namespace: NS }))
      names.push((event.object as V1ConfigMap).metadata?.name ?? '');
    expect(names).toEqual(['a', 'b']);
    expect((await get(client, 'then-closed'))?.metadata?.name).toBe('then-closed');
    await waitFor(
      () => server.connections.filter((c) => c.closed).length === server.connections.length,
      'the closed sockets to be let go',
    );
    expect((await get(client, 'after'))?.metadata?.name).toBe('after');
  });
});
