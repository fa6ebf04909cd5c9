/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call } from '../../__tests__/http-helper.js';
import { QuantityError, canonicalQuantity, parseQuantity } from '../quantity.js';

/**
 * Review (session 11) of resource quantities against apimachinery's pkg/api/resource
 * (quantity.go: parseQuantityString, ParseQuantity, CanonicalizeBytes, String, MarshalJSON,
 * UnmarshalJSON; suffix.go; amount.go). What an operator writes into a built-in kind is decoded by
 * `UnmarshalJSON` and written back by `MarshalJSON`/`String()`, so the stored text is what those do.
 */
const NS = '/api/v1/namespaces/default';

describe('review s11: quantities', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  let n = 0;
  async function podWithLimits(limits: Record<string, unknown>): Promise<{ status: number; body: any }> {
    n += 1;
    const res = await call(server, 'POST', `${NS}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `q${n}` },
      spec: { containers: [{ name: 'c', image: 'busybox:1', resources: { limits } }] },
    });
    return { status: res.status, body: res.json<any>() };
  }

  it('[FINDING S11-SEL1] a quantity kube keeps as written ("1.500", "2.250", "1.441k", "+1", "01", "1E3", "1e+3", "3.") comes back rewritten ("1500m", ...)', async () => {
    // ParseQuantity reuses the input as the Quantity's string when its fast path sees an
    // int64 value with scale%3 == 0, no trailing "000" and no leading '0' digit in num+denom
    // (the sign, stripped leading zeros, an upper-case or signed exponent and a bare '.' are
    // not looked at); String()/MarshalJSON then return that text (kubernetes issue #138165).
    const kept = ['1.500', '2.250', '1.441k', '+1', '01', '1E3', '1e+3', '3.', '+3Ki', '1.000001'];
    for (const q of kept) expect([q, canonicalQuantity(q)]).toEqual([q, q]);
    // inputs the fast path does not keep are still canonicalized
    const rewritten: [string, string][] = [
      ['1.5', '1500m'],
      ['0.500', '500m'],
      ['2.000', '2'],
      ['1000m', '1'],
      ['10e2', '1e3'],
      ['1024Mi', '1Gi'],
      ['+1024Mi', '1Gi'],
      ['-0', '0'],
    ];
    for (const [q, want] of rewritten) expect([q, canonicalQuantity(q)]).toEqual([q, want]);

    const pod = await podWithLimits({ cpu: '1.500', memory: '+1Gi', 'example.com/widgets': '1E3' });
    expect(pod.status).toBe(201);
    expect(pod.body.spec.containers[0].resources.limits).toEqual({
      cpu: '1.500',
      memory: '+1Gi',
      'example.com/widgets': '1E3',
    });
    // requests defaulted from limits carry the same text
    expect(pod.body.spec.containers[0].resources.requests.cpu).toBe('1.500');
  });

  it('[FINDING S11-SEL2] a quantity with an unknown suffix ("500mi", "1ki", "2e") is refused with the regular-expression message instead of kube\'s "unable to parse quantity\'s suffix"', async () => {
    // parseQuantityString accepts any run of [eEinumkKMGTP] followed by an optional sign and
    // digits; suffixer.interpret then fails with ErrSuffix. Only a string the scanner cannot
    // read at all gets ErrFormatWrong (the regular expression message).
    for (const q of ['500mi', '1ki', '2e', '1Kii', '1e3.5e']) {
      let err: unknown;
      try {
        parseQuantity(q);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(QuantityError);
      const expected = q === '1e3.5e' ? 'quantities must match' : "unable to parse quantity's suffix";
      expect([q, (err as Error).message.slice(0, expected.length)]).toEqual([q, expected]);
    }
    const pod = await podWithLimits({ memory: '500mi' });
    expect(pod.status).toBe(400);
    expect(pod.body.message).toBe(
      `Pod in version "v1" cannot be handled as a Pod: unable to parse quantity's suffix`,
    );
    const bad = await podWithLimits({ memory: '1GB' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  });

  it('[FINDING S11-SEL3] a quantity with blanks around it in a request body ("1Gi ", " 500m") is a 400 here; kube\'s Quantity.UnmarshalJSON trims them and stores "1Gi"', async () => {
    const pod = await podWithLimits({ memory: '1Gi ', cpu: ' 500m', 'example.com/x': '\t2000m\n' });
    expect(pod.status).toBe(201);
    expect(pod.body.spec.containers[0].resources.limits).toEqual({
      memory: '1Gi',
      cpu: '500m',
      'example.com/x': '2',
    });
    // ParseQuantity itself (CEL's quantity(), the parser) still refuses them
    expect(() => parseQuantity(' 1')).toThrow(QuantityError);
  });

  it('[FINDING S11-SEL4] quantities beyond 10^18 and the bare sign/point forms differ: "1000e18" is kept as "1000e18" (kube "1e21"), "16Ei" as "16Ei" (kube caps BinarySI at 2^63-1), "." and "+" are refused (kube reads them as 0)', () => {
    // CanonicalizeBytes/AsCanonicalBytes leave the exponent unbounded for DecimalExponent;
    // ParseQuantity caps BinarySI amounts at maxAllowed (2^63-1); parseQuantityString returns
    // num "0" for an input with no digits after an optional sign or before an optional '.'.
    expect(canonicalQuantity('1000e18')).toBe('1e21');
    expect(canonicalQuantity('1e21')).toBe('1e21');
    expect(canonicalQuantity('16Ei')).toBe('9223372036854775807');
    expect(canonicalQuantity('-16Ei')).toBe('-9223372036854775807');
    expect(parseQuantity('16Ei').nanos).toBe((2n ** 63n - 1n) * 10n ** 9n);
    expect(canonicalQuantity('8Ei')).toBe('9223372036854775807');
    expect(canonicalQuantity('7Ei')).toBe('7Ei');
    for (const q of ['.', '+', '-', '+.']) expect([q, canonicalQuantity(q)]).toEqual([q, '0']);
    expect(() => parseQuantity('')).toThrow(QuantityError);
    expect(() => parseQuantity('..')).toThrow(QuantityError);
  });
});
