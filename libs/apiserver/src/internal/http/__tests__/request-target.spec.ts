import { describe, expect, it } from '@jest/globals';
import { splitTarget } from '../request-target.js';
import { parseRequestInfo } from '../request-info.js';

// The request front reads targets without the URL parser when it can (issue 17's throughput work);
// every target must read exactly as `new URL(target, base)` reads it, the way the server read them
// before. A bounded, seeded fuzz over the characters that matter, plus the known traps.

function viaUrl(raw: string): { pathname: string; query: [string, string][] } {
  let url: URL;
  try {
    url = new URL(raw, 'http://localhost');
  } catch {
    url = new URL('http://localhost/');
  }
  return { pathname: url.pathname, query: [...url.searchParams] };
}

function viaSplit(raw: string): { pathname: string; query: [string, string][] } {
  const t = splitTarget(raw);
  return { pathname: t.pathname, query: [...t.searchParams] };
}

/** mulberry32: a small seeded generator, uniform in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TRAPS = [
  '/api/v1/namespaces/default/configmaps/cm-1',
  '/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb%2Cidx+in+(1,2)&limit=5',
  '/api/v1/namespaces/default/configmaps/../secrets/s',
  '/api/v1/namespaces/./default/configmaps',
  '/api/v1/namespaces/default/configmaps/..',
  '/api/v1/namespaces/default/configmaps/.',
  '/api/v1/namespaces/default/configmaps/%2e%2e/x',
  '//api/v1/namespaces',
  '/api/v1/namespaces#frag?x=1',
  '/api/v1/namespaces?watch=1#frag',
  '/api/v1/namespaces/default/configmaps/a b',
  '/api/v1/namespaces/default/configmaps/a"b<c>`{}',
  '/api/v1/namespaces/default/configmaps/caf\u00e9',
  "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3D%27x%27&x='y'",
  '/api/v1/namespaces/default/configmaps?a=%zz&b=%',
  '/api/v1/namespaces\\default',
  'http://other/api/v1/namespaces',
  '*',
  '',
  '/',
  '/apis/apps/v1/namespaces/x.y-z/deployments/web.v1?fieldManager=kubectl-client-side-apply',
];

describe('request targets read without the URL parser', () => {
  it('read the known traps exactly as new URL does (dot segments, network paths, fragments, escapes)', () => {
    for (const raw of TRAPS) expect({ raw, ...viaSplit(raw) }).toEqual({ raw, ...viaUrl(raw) });
  });

  it('read 20,000 seeded random targets exactly as new URL does', () => {
    const alphabet = [
      'a',
      'z',
      'A',
      '0',
      '9',
      '-',
      '.',
      '_',
      '~',
      '/',
      '?',
      '#',
      '%',
      '%2e',
      '%2F',
      '%41',
      '+',
      '=',
      '&',
      ';',
      ':',
      '@',
      ' ',
      '"',
      "'",
      '<',
      '>',
      '\\',
      '{',
      '`',
      '\u00e9',
      '..',
      './',
      '//',
    ];
    const random = rng(17);
    for (let i = 0; i < 20_000; i++) {
      let raw = random() < 0.9 ? '/' : '';
      const n = Math.floor(random() * 24);
      for (let j = 0; j < n; j++) raw += alphabet[Math.floor(random() * alphabet.length)];
      const got = viaSplit(raw);
      const want = viaUrl(raw);
      if (got.pathname !== want.pathname || JSON.stringify(got.query) !== JSON.stringify(want.query))
        throw new Error(
          `seed 17, target ${i} ${JSON.stringify(raw)}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`,
        );
    }
  });

  it('address the same resource after the split as after the URL parser', () => {
    const raw = '/apis/apps/v1/namespaces/team-a/deployments/web/status?dryRun=All';
    const t = splitTarget(raw);
    expect(parseRequestInfo('PATCH', t.pathname, t.searchParams)).toEqual({
      isResource: true,
      group: 'apps',
      version: 'v1',
      namespace: 'team-a',
      resource: 'deployments',
      name: 'web',
      subresource: 'status',
      watchPath: false,
      verb: 'patch',
    });
    expect(t.searchParams.get('dryRun')).toBe('All');
  });

  it('decode percent-escaped path segments and keep undecodable ones as they are', () => {
    const info = parseRequestInfo('GET', '/api/v1/namespaces/a%2Db/configmaps/x%zz', new URLSearchParams());
    expect(info).toMatchObject({ namespace: 'a-b', resource: 'configmaps', name: 'x%zz', verb: 'get' });
    const plain = parseRequestInfo('GET', '//api//v1/namespaces/n/configmaps/', new URLSearchParams());
    expect(plain).toMatchObject({ namespace: 'n', resource: 'configmaps', verb: 'list' });
  });
});
