// S14 review of the Tomcat sample: what a user who copies it hits at the edges.
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
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
});
