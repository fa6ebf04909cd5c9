import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { firstHeader } from '../headers.js';

// The request front reads the few headers a write needs from the raw headers (issue 17), so Node
// does not build the headers object per request. It must give exactly what req.headers gives:
// names in any case, the first of a repeated header, undefined when absent.

const NAMES = ['authorization', 'content-type', 'content-length', 'user-agent'];

describe('firstHeader', () => {
  let port = 0;
  const seen: { raw: Record<string, string | undefined>; parsed: Record<string, unknown> }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const raw: Record<string, string | undefined> = {};
    for (const n of NAMES) raw[n] = firstHeader(req, n);
    const parsed: Record<string, unknown> = {};
    for (const n of NAMES) parsed[n] = req.headers[n];
    seen.push({ raw, parsed });
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function send(head: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => s.end(`${head}\r\n\r\n`));
      s.on('data', () => undefined);
      s.on('close', () => resolve());
      s.on('error', reject);
    });
  }

  it('gives what req.headers gives, for any case, repeats and absence', async () => {
    const requests = [
      'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer a\r\nauthorization: Bearer b\r\nUser-Agent: kubectl/v1.31\r\nCONTENT-TYPE: application/json; charset=utf-8',
      'GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/yaml\r\nContent-Type: application/json\r\nuser-agent:  spaced  ',
      'GET / HTTP/1.1\r\nHost: x\r\nConnection: close',
      'POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}',
    ];
    for (const r of requests) await send(r);
    expect(seen).toHaveLength(requests.length);
    for (const { raw, parsed } of seen) expect(raw).toEqual(parsed);
    expect(seen[0].raw.authorization).toBe('Bearer a');
    expect(seen[1].raw['content-type']).toBe('application/yaml');
    expect(seen[2].raw['user-agent']).toBeUndefined();
  });

  it('reads a request without raw headers (a replayed one) through req.headers', () => {
    const replayed = { headers: { 'content-type': 'application/json' } } as unknown as IncomingMessage;
    expect(firstHeader(replayed, 'content-type')).toBe('application/json');
    expect(firstHeader(replayed, 'authorization')).toBeUndefined();
  });
});
