import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

// How a request body reaches the handler: a small body that came with its headers is taken from the
// request's buffer in one read; one still on its way, one without a declared length and pipelined
// requests must be read just as well (raw sockets, to control how the bytes arrive).

/** Reads answers from a raw connection: each complete response's status and body, in order. */
class Answers {
  private buf = '';
  readonly got: { status: number; body: string }[] = [];
  /** Set once the server sent `100 Continue`. */
  continued = false;

  constructor(socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buf += chunk;
      this.parse();
    });
  }

  private parse(): void {
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buf.slice(0, end);
      const status = Number(head.slice(9, 12));
      if (status === 100) {
        this.continued = true;
        this.buf = this.buf.slice(end + 4);
        continue;
      }
      const m = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (!m) throw new Error(`answer without Content-Length: ${head}`);
      const length = Number(m[1]);
      if (this.buf.length < end + 4 + length) return;
      const body = Buffer.from(this.buf.slice(end + 4, end + 4 + length), 'latin1').toString('utf8');
      this.got.push({ status, body });
      this.buf = this.buf.slice(end + 4 + length);
    }
  }
}

/** Polls `check` every few milliseconds until it holds, failing after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function configMap(name: string, value: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } });
}

describe('request bodies', () => {
  let server: KubeApiServer;
  const open: Socket[] = [];

  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });

  afterAll(async () => {
    for (const s of open) s.destroy();
    await server.stop();
  });

  async function socket(): Promise<{ s: Socket; answers: Answers }> {
    const s = await new Promise<Socket>((resolve, reject) => {
      const c = connect({ host: '127.0.0.1', port: server.port }, () => resolve(c));
      c.once('error', reject);
    });
    open.push(s);
    return { s, answers: new Answers(s) };
  }

  function head(method: string, path: string, extra: string): string {
    return (
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.tokenOf()}\r\n` +
      `Content-Type: application/json\r\n${extra}\r\n`
    );
  }

  async function stored(name: string): Promise<string | undefined> {
    const r = await call(server, 'GET', `/api/v1/namespaces/default/configmaps/${name}`);
    return r.status === 200 ? r.json<{ data: { value: string } }>().data.value : undefined;
  }

  it('a body sent only after the handler started (Expect: 100-continue), in two parts, is read whole', async () => {
    const body = Buffer.from(configMap('late-body', 'x'.repeat(20_000)));
    const { s, answers } = await socket();
    s.write(
      head(
        'POST',
        '/api/v1/namespaces/default/configmaps',
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n`,
      ),
    );
    // the server asks for the body after it dispatched the request: the body comes later
    await until(() => answers.continued, '100 Continue');
    s.write(body.subarray(0, 7_000));
    await new Promise((r) => setImmediate(r));
    s.write(body.subarray(7_000));
    await until(() => answers.got.length === 1, 'the answer');
    expect(answers.got[0].status).toBe(201);
    expect(await stored('late-body')).toBe('x'.repeat(20_000));
  });

  it('a chunked body without Content-Length is read whole', async () => {
    const body = configMap('chunked-body', 'chunked');
    const { s, answers } = await socket();
    const half = Math.floor(body.length / 2);
    const chunk = (t: string): string => `${Buffer.byteLength(t).toString(16)}\r\n${t}\r\n`;
    s.write(
      head('POST', '/api/v1/namespaces/default/configmaps', 'Transfer-Encoding: chunked\r\n') +
        chunk(body.slice(0, half)) +
        chunk(body.slice(half)) +
        '0\r\n\r\n',
    );
    await until(() => answers.got.length === 1, 'the answer');
    expect(answers.got[0].status).toBe(201);
    expect(await stored('chunked-body')).toBe('chunked');
  });

  it('pipelined requests in one write each get their own body, answered in order', async () => {
    const { s, answers } = await socket();
    const requests: string[] = [];
    for (let i = 0; i < 5; i++) {
      const body = configMap(`piped-${i}`, `v${i}`);
      requests.push(
        head(
          'POST',
          '/api/v1/namespaces/default/configmaps',
          `Content-Length: ${Buffer.byteLength(body)}\r\n`,
        ) + body,
      );
    }
    const patch = JSON.stringify({ data: { value: 'patched' } });
    requests.push(
      `PATCH /api/v1/namespaces/default/configmaps/piped-0 HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${server.tokenOf()}\r\nContent-Type: application/merge-patch+json\r\n` +
        `Content-Length: ${Buffer.byteLength(patch)}\r\n\r\n${patch}`,
    );
    s.write(requests.join(''));
    await until(() => answers.got.length === 6, 'six answers');
    expect(answers.got.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 200]);
    expect(
      answers.got.map((a) => (JSON.parse(a.body) as { metadata: { name: string } }).metadata.name),
    ).toEqual(['piped-0', 'piped-1', 'piped-2', 'piped-3', 'piped-4', 'piped-0']);
    for (let i = 1; i < 5; i++) expect(await stored(`piped-${i}`)).toBe(`v${i}`);
    expect(await stored('piped-0')).toBe('patched');
  });

  it('an empty body with Content-Length 0 answers 400 naming the empty body', async () => {
    const { s, answers } = await socket();
    s.write(head('POST', '/api/v1/namespaces/default/configmaps', 'Content-Length: 0\r\n'));
    await until(() => answers.got.length === 1, 'the answer');
    expect(answers.got[0].status).toBe(400);
    expect(answers.got[0].body).toContain('the request body is empty');
  });
});
