import { describe, expect, it } from '@jest/globals';
import { readLines } from '../internal/transport.js';

async function* chunks(parts: Buffer[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield part;
}

async function collect(parts: Buffer[]): Promise<string[]> {
  const out: string[] = [];
  for await (const line of readLines(chunks(parts))) out.push(line);
  return out;
}

/** A small deterministic generator (mulberry32) so failures reproduce. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('readLines (watch stream framing)', () => {
  const lines = [
    JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'ascii' } } }),
    JSON.stringify({ type: 'MODIFIED', object: { metadata: { name: 'ünïcödé-名前-🚀' } } }),
    JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '12345' } } }),
    JSON.stringify({ type: 'DELETED', object: { data: { big: 'x'.repeat(20_000) } } }),
  ];
  const bytes = Buffer.from(`${lines.join('\n')}\n`, 'utf8');

  it('yields the same lines however the bytes are cut (200 random cuttings, multi-byte characters included)', async () => {
    const random = seeded(42);
    for (let round = 0; round < 200; round++) {
      const parts: Buffer[] = [];
      let at = 0;
      while (at < bytes.length) {
        const size = 1 + Math.floor(random() * (round % 10 === 0 ? 7 : 9000));
        parts.push(bytes.subarray(at, at + size));
        at += size;
      }
      expect(await collect(parts)).toEqual(lines);
    }
  });

  it('skips blank lines and keeps a last line without a newline', async () => {
    expect(await collect([Buffer.from('\n\n{"a":1}\r\n\n{"b":2}')])).toEqual(['{"a":1}\r', '{"b":2}']);
    expect(await collect([])).toEqual([]);
  });
});
