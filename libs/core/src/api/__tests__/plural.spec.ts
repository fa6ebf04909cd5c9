import { describe, expect, it } from '@jest/globals';
import { defineResource } from '../resource-type.js';
import { defaultPlural } from '../plural.js';

describe('the default plural of a kind', () => {
  it.each([
    ['WebPage', 'webpages'],
    ['MySQLSchema', 'mysqlschemas'],
    ['Tomcat', 'tomcats'],
    ['NetworkPolicy', 'networkpolicies'],
    ['ClusterPolicy', 'clusterpolicies'],
    ['Gateway', 'gateways'],
    ['Ingress', 'ingresses'],
    ['IngressClass', 'ingressclasses'],
    ['Box', 'boxes'],
    ['Switch', 'switches'],
    ['Mesh', 'meshes'],
    ['Status', 'statuses'],
    ['Prometheus', 'prometheuses'],
    ['Endpoints', 'endpoints'],
    ['Gizmo', 'gizmos'],
    ['Shelf', 'shelves'],
    ['Knife', 'knives'],
    ['Datum', 'data'],
    ['Axis', 'axes'],
    ['Person', 'people'],
    ['Sheep', 'sheep'],
    ['Series', 'series'],
  ])('%s → %s', (kind, plural) => {
    expect(defaultPlural(kind)).toBe(plural);
  });

  it('is what defineResource uses unless a plural is given', () => {
    expect(defineResource({ group: 'x.io', version: 'v1', kind: 'BackupPolicy' }).plural).toBe(
      'backuppolicies',
    );
    expect(defineResource({ group: 'x.io', version: 'v1', kind: 'BackupPolicy', plural: 'bps' }).plural).toBe(
      'bps',
    );
  });
});
