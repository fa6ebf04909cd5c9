import { describe, expect, it } from '@jest/globals';
import { checkNameConflicts, crdStatus, findNameConflict } from '../index.js';
import type { JsonObject } from '../../types.js';
import { v0, webPageCrd } from './fixtures.js';

const NOW = '2026-01-10T12:00:00Z';

describe('crdStatus', () => {
  it('an accepted CRD has NamesAccepted and Established true, its accepted names and the storage version stored', () => {
    expect(crdStatus(webPageCrd(), NOW)).toEqual({
      conditions: [
        {
          type: 'NamesAccepted',
          status: 'True',
          lastTransitionTime: NOW,
          reason: 'NoConflicts',
          message: 'no conflicts found',
        },
        {
          type: 'Established',
          status: 'True',
          lastTransitionTime: NOW,
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        },
      ],
      acceptedNames: {
        plural: 'webpages',
        singular: 'webpage',
        kind: 'WebPage',
        listKind: 'WebPageList',
        shortNames: ['wp'],
      },
      storedVersions: ['v1'],
    });
  });

  it('keeps earlier stored versions and transition times of unchanged conditions', () => {
    const crd = webPageCrd((c) => c.spec.versions.push({ name: 'v2', served: true, storage: false }));
    const first = crdStatus(crd, NOW);
    const moved = webPageCrd((c) => {
      v0(c).storage = false;
      c.spec.versions.push({ name: 'v2', served: true, storage: true });
    });
    const second = crdStatus({ ...moved, status: first }, '2026-02-01T00:00:00Z');
    expect(second.storedVersions).toEqual(['v1', 'v2']);
    expect((second.conditions as JsonObject[]).map((c) => c.lastTransitionTime)).toEqual([NOW, NOW]);
  });

  it('a names conflict gives NamesAccepted False with the conflict and Established False NotAccepted', () => {
    const other = { ...webPageCrd(), metadata: { name: 'pages.sample.tosdk.io' } } as JsonObject;
    const mine = webPageCrd((c) => {
      c.metadata.name = 'sites.sample.tosdk.io';
      c.spec.names = { plural: 'sites', singular: 'site', kind: 'WebPage' };
    });
    const conflict = findNameConflict(mine, [other]);
    expect(conflict).toEqual({ reason: 'KindConflict', message: '"WebPage" is already in use' });
    const status = crdStatus(mine, NOW, conflict);
    expect(status.conditions).toEqual([
      {
        type: 'NamesAccepted',
        status: 'False',
        lastTransitionTime: NOW,
        reason: 'KindConflict',
        message: '"WebPage" is already in use',
      },
      {
        type: 'Established',
        status: 'False',
        lastTransitionTime: NOW,
        reason: 'NotAccepted',
        message: 'not all names are accepted',
      },
    ]);
    expect(status.acceptedNames).toEqual({ plural: '', kind: '' });
  });

  it('checkNameConflicts: a plural used as another CRD short name conflicts; another group or the CRD itself does not', () => {
    const other = webPageCrd((c) => {
      c.metadata.name = 'things.sample.tosdk.io';
      c.spec.names = { plural: 'things', singular: 'thing', kind: 'Thing', shortNames: ['webpages'] };
    });
    expect(checkNameConflicts(webPageCrd(), [other])).toBe('"webpages" is already in use');
    const otherGroup = webPageCrd((c) => {
      c.spec.group = 'other.io';
      c.metadata.name = 'webpages.other.io';
    });
    expect(checkNameConflicts(webPageCrd(), [otherGroup, webPageCrd()])).toBeUndefined();
  });
});
