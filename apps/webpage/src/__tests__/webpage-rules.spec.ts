import { describe, expect, it } from '@jest/globals';
import { containsDesired } from '../desired-state-match.js';
import {
  desiredConfigMap,
  desiredDeployment,
  desiredIngress,
  desiredService,
  ingressPath,
} from '../webpage-desired.js';
import { flavourFromEnvironment, InvalidFlavourError } from '../webpage-flavour.js';
import { HTML_HASH_ANNOTATION } from '../webpage-names.js';
import { isDeploymentReady } from '../webpage-status.js';
import { InvalidWebPageError, validateWebPage } from '../webpage-validation.js';
import { InvalidSettingError, settingsFromEnvironment } from '../settings.js';
import type { WebPage } from '../webpage.resource.js';

const page = (name: string, html: unknown, exposed?: boolean): WebPage =>
  ({
    apiVersion: 'sample.tosdk.io/v1',
    kind: 'WebPage',
    metadata: { name, namespace: 'web', uid: 'uid-1', generation: 3 },
    spec: { html, exposed },
  }) as WebPage;

function rejection(fn: () => void): InvalidWebPageError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidWebPageError) return error;
    throw error;
  }
  throw new Error('expected an InvalidWebPageError');
}

describe('validateWebPage', () => {
  it('accepts a page with content', () => {
    expect(() => validateWebPage(page('hello', '<html></html>'))).not.toThrow();
  });

  it.each([[''], ['   '], ['\n\t \r\n']])(
    'rejects the blank page %j with code InvalidWebPage and reason BlankHtml',
    (html) => {
      const error = rejection(() => validateWebPage(page('hello', html)));
      expect(error).toMatchObject({ code: 'InvalidWebPage', reason: 'BlankHtml' });
      expect(error.message).toBe('spec.html is blank: set it to the page to serve');
    },
  );

  it('rejects a missing page', () => {
    expect(rejection(() => validateWebPage(page('hello', undefined))).reason).toBe('MissingHtml');
    expect(rejection(() => validateWebPage(page('hello', 42))).reason).toBe('MissingHtml');
  });

  it.each([['1st-page'], ['my.page'], ['a'.repeat(64)], ['page-']])(
    'rejects the name %j, which cannot name a Service',
    (name) => {
      const error = rejection(() => validateWebPage(page(name, '<p>x</p>')));
      expect(error.reason).toBe('InvalidName');
      expect(error.message).toContain(`"${name}"`);
    },
  );
});

describe('desired state', () => {
  const p = page('shop', '<html>shop</html>', true);

  it('owns every secondary through a controller owner reference and labels it for the informers', () => {
    for (const d of [desiredConfigMap(p), desiredDeployment(p), desiredService(p), desiredIngress(p)]) {
      expect(d.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'sample.tosdk.io/v1',
          kind: 'WebPage',
          name: 'shop',
          uid: 'uid-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(d.metadata.labels).toEqual({
        'app.kubernetes.io/managed-by': 'webpage-operator',
        'sample.tosdk.io/webpage': 'shop',
      });
      expect(d.metadata.namespace).toBe('web');
    }
  });

  it('mounts the ConfigMap in nginx and rolls the pods when the page changes', () => {
    const d = desiredDeployment(p);
    expect(desiredConfigMap(p).data).toEqual({ 'index.html': '<html>shop</html>' });
    expect(d.spec?.template.spec?.volumes).toEqual([{ name: 'html', configMap: { name: 'shop-html' } }]);
    const other = desiredDeployment(page('shop', '<html>other</html>'));
    expect(other.spec?.template.metadata?.annotations?.[HTML_HASH_ANNOTATION]).not.toBe(
      d.spec?.template.metadata?.annotations?.[HTML_HASH_ANNOTATION],
    );
    expect(desiredService(p).spec?.selector).toEqual(d.spec?.selector.matchLabels);
  });

  it('routes /<namespace>/<name> to the Service', () => {
    expect(ingressPath(p)).toBe('/web/shop');
    expect(desiredIngress(p).spec?.rules?.[0]?.http?.paths[0]?.backend.service?.name).toBe('shop');
  });
});

describe('containsDesired', () => {
  it('ignores what only the actual object has, and compares lists element by element', () => {
    expect(containsDesired({ a: 1, b: [{ c: 1 }] }, { a: 1, x: 2, b: [{ c: 1, d: 3 }] })).toBe(true);
    expect(containsDesired({ a: 1 }, { a: 2 })).toBe(false);
    expect(containsDesired({ b: [1, 2] }, { b: [1] })).toBe(false);
    expect(containsDesired({ b: { c: 1 } }, { b: null })).toBe(false);
    expect(containsDesired({ a: undefined }, {})).toBe(true);
  });
});

describe('isDeploymentReady', () => {
  it('needs the current generation observed and every replica updated and ready', () => {
    const d = (status: object, generation = 2, replicas = 1) => ({
      metadata: { generation },
      spec: { replicas, selector: {}, template: {} },
      status,
    });
    expect(isDeploymentReady(undefined)).toBe(false);
    expect(isDeploymentReady(d({ observedGeneration: 2, updatedReplicas: 1, readyReplicas: 1 }))).toBe(true);
    expect(isDeploymentReady(d({ observedGeneration: 1, updatedReplicas: 1, readyReplicas: 1 }))).toBe(false);
    expect(isDeploymentReady(d({ observedGeneration: 2, updatedReplicas: 1, readyReplicas: 0 }))).toBe(false);
    expect(isDeploymentReady(d({ observedGeneration: 2, updatedReplicas: 1, readyReplicas: 1 }, 2, 2))).toBe(
      false,
    );
  });
});

describe('settings', () => {
  it('defaults to the managed flavour on 127.0.0.1:8080 without leader election', () => {
    const s = settingsFromEnvironment({}, () => false);
    expect(s).toMatchObject({
      flavour: 'managed',
      httpHost: '127.0.0.1',
      httpPort: 8080,
      leaderElection: false,
      leaseName: 'webpage-operator',
      clusterConfigured: false,
    });
  });

  it('takes a cluster as configured with KUBECONFIG, or in a pod with a service account token, never from ~/.kube/config alone', () => {
    expect(settingsFromEnvironment({ KUBECONFIG: '/x' }, () => false).clusterConfigured).toBe(true);
    expect(
      settingsFromEnvironment({ KUBERNETES_SERVICE_HOST: '10.0.0.1' }, () => true).clusterConfigured,
    ).toBe(true);
    expect(
      settingsFromEnvironment({ KUBERNETES_SERVICE_HOST: '10.0.0.1' }, () => false).clusterConfigured,
    ).toBe(false);
    expect(settingsFromEnvironment({ HOME: '/home/u' }, () => true).clusterConfigured).toBe(false);
  });

  it('reads the flavour case-insensitively and names the variable of a bad value', () => {
    expect(flavourFromEnvironment({ WEBPAGE_FLAVOUR: ' LowLevel ' })).toBe('lowlevel');
    expect(() => flavourFromEnvironment({ WEBPAGE_FLAVOUR: 'x' })).toThrow(InvalidFlavourError);
    for (const [variable, value] of [
      ['WEBPAGE_HTTP_PORT', '80a'],
      ['WEBPAGE_HTTP_PORT', '70000'],
      ['WEBPAGE_LEADER_ELECTION', 'yes'],
      ['WEBPAGE_LEASE_NAME', 'Bad_Name'],
      ['WEBPAGE_DEV_APISERVER_PORT', '-1'],
    ] as const) {
      let error: unknown;
      try {
        settingsFromEnvironment({ [variable]: value }, () => false);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidSettingError);
      expect(error).toMatchObject({ code: 'InvalidWebPageSetting', variable });
    }
  });
});
