// S14 review of the Tomcat sample: what a user who copies it hits at the edges.
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { ResourceTypes } from '@tosdk/core';
import { Tomcat, Webapp } from '../tomcat.resource.js';
import { tomcat, tomcatOperatorPerTest, webapp } from './support/e2e-support.js';

const operator = tomcatOperatorPerTest();

const WAIT = { timeoutMs: 30_000 };

describe('S14 review: Tomcat sample', () => {
  it('[FINDING S14-AP1] a Webapp naming a Tomcat whose name cannot be deployed (64 characters) says so in its status, instead of an API error about a label value', async () => {
    const t = await operator();
    const ns = t.namespace;
    const long = `t${'a'.repeat(63)}`;
    await t.adminClient.create(Tomcat, tomcat(ns, long, { version: '10.1', replicas: 1 }));
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'shop', { tomcat: long, url: 'http://files.local/shop.war', contextPath: '/shop' }),
    );
    const reported = await t.waitForResource(Webapp, 'shop', (w) => !!w.status?.errorMessage, WAIT);
    expect(reported.status?.ready).toBe(false);
    expect(reported.status?.errorMessage).toContain(`Tomcat "${long}"`);
    expect(reported.status?.errorMessage).toContain('metadata.name');
    expect(reported.status?.errorMessage).not.toContain('labels');
    // nothing was written for a Tomcat that cannot run
    expect(await t.adminClient.list(ResourceTypes.ConfigMap, { namespace: ns })).toEqual(
      expect.not.arrayContaining([
        expect.objectContaining({ metadata: expect.objectContaining({ name: `${long}-webapps` }) }),
      ]),
    );
  }, 60_000);

  it('[FINDING S14-AP3] `npm start -w` of the tomcat and mysql-schema samples makes the file the built code imports @tosdk/core from (a fresh clone failed with ERR_MODULE_NOT_FOUND tosdk-core.js; an old one ran a stale bundle)', () => {
    const read = (path: string) =>
      JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as unknown;
    const core = read('../../../../libs/core/package.json') as { exports: { '.': { default: string } } };
    // what `node dist/main.js` loads for `import ... from '@tosdk/core'`
    expect(core.exports['.'].default).toBe('./dist/tosdk-core.js');
    for (const app of ['tomcat', 'mysql-schema']) {
      const pkg = read(`../../../${app}/package.json`) as { scripts: Record<string, string> };
      for (const script of ['build', 'start']) {
        const steps = pkg.scripts[script].split('&&').map((s) => s.trim());
        const compile = steps.indexOf('tsc -b tsconfig.build.json');
        const bundle = steps.indexOf('node ../../libs/core/scripts/bundle.mjs');
        const run = steps.findIndex((s) => s.endsWith('node dist/main.js'));
        expect({ app, script, compile, bundleAfterCompile: bundle > compile }).toEqual({
          app,
          script,
          compile: 0,
          bundleAfterCompile: true,
        });
        if (run >= 0) expect(run).toBeGreaterThan(bundle);
      }
    }
  });
});
