import { describe, expect, it } from '@jest/globals';
import { InvalidTomcatNameError, tomcatNameProblem } from '../tomcat/tomcat-name.js';
import type { Tomcat, Webapp, WebappSpec } from '../tomcat.resource.js';
import { contextPathsOf, listHash, renderWebappList, warName, webappList } from '../webapp/webapp-list.js';
import { InvalidWebappError, validateWebapp } from '../webapp/webapp-validation.js';

const app = (name: string, spec: Partial<WebappSpec>, created: string, deleting = false): Webapp => ({
  apiVersion: 'tomcat.sample.tosdk.io/v1',
  kind: 'Webapp',
  metadata: {
    name,
    namespace: 'ns',
    creationTimestamp: created as unknown as Date,
    ...(deleting ? { deletionTimestamp: '2026-01-02T00:00:00Z' as unknown as Date } : {}),
  },
  spec: { tomcat: 't', url: `http://x.local/${name}.war`, contextPath: `/${name}`, ...spec },
});

describe('the application list of a Tomcat', () => {
  it('maps context paths to Tomcat WAR names and back', () => {
    expect(warName('/')).toBe('ROOT');
    expect(warName('/shop')).toBe('shop');
    expect(warName('/a/b')).toBe('a#b');
    expect(contextPathsOf('ROOT http://x/r.war\na#b http://x/ab.war\n')).toEqual(['/', '/a/b']);
  });

  it('lists each context path once, the older Webapp first, and leaves out Webapps being deleted', () => {
    const list = webappList([
      app('late', { contextPath: '/same' }, '2026-01-01T00:00:05Z'),
      app('early', { contextPath: '/same' }, '2026-01-01T00:00:01Z'),
      app('gone', {}, '2026-01-01T00:00:00Z', true),
      app('root', { contextPath: '/' }, '2026-01-01T00:00:03Z'),
    ]);
    expect(list.entries.map((e) => e.webapp)).toEqual(['root', 'early']);
    expect([...list.conflicts]).toEqual([['late', 'early']]);
    const rendered = renderWebappList(list);
    expect(rendered).toBe('ROOT http://x.local/root.war\nsame http://x.local/early.war\n');
    expect(listHash(rendered)).not.toBe(listHash(''));
  });
});

describe('Webapp validation', () => {
  it.each([
    [{ contextPath: 'shop' }, 'spec.contextPath'],
    [{ contextPath: '/a//b' }, 'spec.contextPath'],
    [{ contextPath: '/a b' }, 'spec.contextPath'],
    [{ url: 'not a url' }, 'spec.url'],
    [{ url: 'ftp://x.local/a.war' }, 'spec.url'],
    [{ tomcat: '' }, 'spec.tomcat'],
  ])('refuses %j naming %s', (spec, field) => {
    let error: unknown;
    try {
      validateWebapp(app('w', spec, '2026-01-01T00:00:00Z'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidWebappError);
    expect(error).toMatchObject({ code: 'InvalidWebapp', field });
  });

  it('accepts the root, nested paths and https URLs', () => {
    for (const contextPath of ['/', '/shop', '/a/b-c_d.e'])
      expect(() =>
        validateWebapp(app('w', { contextPath, url: 'https://x.local/w.war' }, '2026-01-01T00:00:00Z')),
      ).not.toThrow();
  });
});

describe('[S8-SA5] context paths Tomcat maps to ROOT.war', () => {
  it('/ROOT in any case is refused naming spec.contextPath; the list keeps one line per WAR name', () => {
    for (const contextPath of ['/ROOT', '/root', '/Root']) {
      expect(() => validateWebapp(app('w', { contextPath }, '2026-01-01T00:00:00Z'))).toThrow(
        /^spec\.contextPath: /,
      );
    }
    const list = webappList([
      app('home', { contextPath: '/' }, '2026-01-01T00:00:00Z'),
      app('rooted', { contextPath: '/ROOT' }, '2026-01-02T00:00:00Z'),
    ]);
    expect(list.entries.map((e) => e.webapp)).toEqual(['home']);
    expect(list.conflicts.get('rooted')).toBe('home');
  });
});

describe('Tomcat names', () => {
  const named = (name: string): Tomcat => ({
    apiVersion: 'tomcat.sample.tosdk.io/v1',
    kind: 'Tomcat',
    metadata: { name, namespace: 'ns' },
    spec: { version: '10.1' },
  });

  it('[S8-SA6] must name a Service (an RFC 1035 label of at most 63 characters); the error names metadata.name and the name', () => {
    for (const ok of ['web', 'web-1', 'a'.repeat(63)]) expect(tomcatNameProblem(named(ok))).toBeUndefined();
    for (const bad of ['web.v1', '1web', 'a'.repeat(64)]) {
      const problem = tomcatNameProblem(named(bad));
      expect(problem).toBeInstanceOf(InvalidTomcatNameError);
      expect(problem?.code).toBe('InvalidTomcatName');
      expect(problem?.message).toContain(`metadata.name "${bad}"`);
    }
  });
});
