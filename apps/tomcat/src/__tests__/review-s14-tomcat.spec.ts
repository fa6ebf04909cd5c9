// S14 review of the Tomcat sample: what a user who copies it hits at the edges.
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import { Tomcat, Webapp } from '../tomcat.resource.js';
import { waitFor } from '@tosdk/nestjs/testing';
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

  it('[FINDING S14-AP4] a ConfigMap of the user named "<tomcat>-webapps" is not taken over as the application list (and garbage collected with the Tomcat); the Webapp says so', async () => {
    const t = await operator();
    const ns = t.namespace;
    const id = new ResourceID('srv-webapps', ns);
    await t.adminClient.create(ResourceTypes.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'srv-webapps', namespace: ns },
      data: { 'settings.properties': 'mine=1' },
    });
    await t.adminClient.create(Tomcat, tomcat(ns, 'srv', { version: '10.1', replicas: 1 }));
    await t.adminClient.create(
      Webapp,
      webapp(ns, 'shop', { tomcat: 'srv', url: 'http://files.local/shop.war', contextPath: '/shop' }),
    );
    const reported = await t.waitForResource(Webapp, 'shop', (w) => !!w.status?.errorMessage, WAIT);
    expect(reported.status?.ready).toBe(false);
    expect(reported.status?.errorMessage).toContain('ConfigMap');
    expect(reported.status?.errorMessage).toContain('srv-webapps');
    const mine = await t.adminClient.get(ResourceTypes.ConfigMap, id);
    expect(mine?.data).toEqual({ 'settings.properties': 'mine=1' });
    expect(mine?.metadata?.ownerReferences ?? []).toEqual([]);
    // the user's ConfigMap outlives the Tomcat
    await t.adminClient.delete(Tomcat, new ResourceID('srv', ns));
    await t.waitForDeletion(ResourceTypes.Deployment, 'srv', WAIT);
    expect(await t.adminClient.get(ResourceTypes.ConfigMap, id)).toBeDefined();
    // once the user renames theirs away, the Webapp is deployed
    await t.adminClient.delete(ResourceTypes.ConfigMap, id);
    await t.adminClient.create(Tomcat, tomcat(ns, 'srv', { version: '10.1', replicas: 1 }));
    await waitFor(
      async () => (await t.adminClient.get(Webapp, new ResourceID('shop', ns)))?.status?.ready === true,
      {
        ...WAIT,
        description: 'shop deployed once the name is free',
      },
    );
  }, 90_000);

  it('[FINDING S14-AP7] a spec.version that is no image tag (starting with "." or "-") is refused by the CRD naming the field, not turned into pods that never pull', async () => {
    const t = await operator();
    for (const version of ['-1', '.1']) {
      await expect(t.adminClient.create(Tomcat, tomcat(t.namespace, 'bad', { version }))).rejects.toThrow(
        /spec\.version/,
      );
    }
    // what tags look like stays accepted
    for (const [name, version] of [
      ['a', '10.1'],
      ['b', '11.0-jdk21'],
      ['c', '9.0.98_jre17'],
    ])
      await t.adminClient.create(Tomcat, tomcat(t.namespace, name, { version }));
  });
});
