import { describe, expect, it } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { CustomResource } from '../../api/resource-type.js';
import { defineResource } from '../../api/resource-type.js';
import {
  ControllerConfiguration,
  DEFAULT_MAX_RECONCILIATION_INTERVAL_MS,
  defaultFinalizerName,
  InvalidControllerConfigurationError,
  resolveControllerConfiguration,
} from '../controller-configuration.js';
import { WATCH_ALL_NAMESPACES, WATCH_CURRENT_NAMESPACE } from '../namespaces.js';
import { LinearRateLimiter } from '../rate-limiter.js';
import { GenericRetry } from '../retry.js';

type Page = CustomResource<{ html: string }>;
const Page = defineResource<Page>({ group: 'sample.tosdk.io', version: 'v1', kind: 'WebPage' });
const defaults = { currentNamespace: 'operator-ns', useSSA: true };

@ControllerConfiguration({ resourceType: Page, namespaces: ['a'], labelSelector: 'x=y' })
class WebPageReconciler implements Reconciler<Page> {
  reconcile() {
    return UpdateControl.noUpdate<Page>();
  }
}
class DerivedReconciler extends WebPageReconciler {}

describe('controller configuration', () => {
  it('[OP-05] fills JOSDK defaults: name from the class, finalizer from plural and group, generation aware, 10 h interval, SSA, field manager = name', () => {
    const c = resolveControllerConfiguration(new WebPageReconciler(), undefined, defaults);
    expect(c.name).toBe('webpagereconciler');
    expect(c.finalizerName).toBe('webpages.sample.tosdk.io/finalizer');
    expect(c.namespaces).toEqual(['a']);
    expect(c.labelSelector).toBe('x=y');
    expect(c.generationAware).toBe(true);
    expect(c.useDefaultEventFilters).toBe(true);
    expect(c.maxReconciliationIntervalMs).toBe(DEFAULT_MAX_RECONCILIATION_INTERVAL_MS);
    expect(c.fieldManager).toBe('webpagereconciler');
    expect(c.useSSA).toBe(true);
    expect(c.retry).toBeInstanceOf(GenericRetry);
    expect((c.retry as GenericRetry).getMaxAttempts()).toBe(5);
    expect((c.rateLimiter as LinearRateLimiter).isActivated()).toBe(false);
    expect(c.recordReconcileErrorEvents).toBe(true);
  });

  it('[OP-05] registration options win over the decorator; the decorator is inherited', () => {
    const c = resolveControllerConfiguration(
      new DerivedReconciler(),
      {
        namespaces: [WATCH_CURRENT_NAMESPACE, 'b'],
        maxReconciliationIntervalMs: 0,
        retry: { maxAttempts: 1 },
        rateLimiter: { limitForPeriod: 3 },
        useSSA: false,
      },
      defaults,
    );
    expect(c.name).toBe('derivedreconciler');
    expect(c.namespaces).toEqual(['b', 'operator-ns']);
    expect(c.labelSelector).toBe('x=y');
    expect(c.maxReconciliationIntervalMs).toBeUndefined();
    expect((c.retry as GenericRetry).getMaxAttempts()).toBe(1);
    expect((c.rateLimiter as LinearRateLimiter).limitForPeriod).toBe(3);
    expect(c.useSSA).toBe(false);
    expect(
      resolveControllerConfiguration(
        new WebPageReconciler(),
        { namespaces: [WATCH_ALL_NAMESPACES] },
        defaults,
      ).namespaces,
    ).toEqual([]);
  });

  it('uses <plural>/finalizer for core-group kinds', () => {
    expect(defaultFinalizerName(ResourceTypes.Service)).toBe('services/finalizer');
    expect(defaultFinalizerName(ResourceTypes.Deployment)).toBe('deployments.apps/finalizer');
  });

  it('rejects bad input with a typed error naming the field', () => {
    const bad =
      (o: object, r: Reconciler<Page> = new WebPageReconciler()) =>
      () =>
        resolveControllerConfiguration(r, o, defaults);
    expect(bad({ finalizerName: 'not a name' })).toThrow(InvalidControllerConfigurationError);
    expect(bad({ namespaces: ['Bad_NS'] })).toThrow(/namespaces/);
    expect(bad({ namespaces: [WATCH_ALL_NAMESPACES, 'a'] })).toThrow(/cannot be combined/);
    expect(bad({ retry: { maxAttempts: -5 } })).toThrow(/maxAttempts/);
    expect(bad({ rateLimiter: { refreshPeriodMs: 0 } })).toThrow(/refreshPeriodMs/);
    expect(bad({ reconcileTimeoutMs: -1 })).toThrow(/reconcileTimeoutMs/);
    expect(bad({ onAddFilter: 'yes' })).toThrow(/onAddFilter/);
    expect(bad({}, { reconcile: () => UpdateControl.noUpdate() })).toThrow(/resourceType is required/);
    expect(bad({ resourceType: Page }, { reconcile: () => UpdateControl.noUpdate() })).toThrow(
      /name is required/,
    );
    expect(bad({ resourceType: ResourceTypes.Namespace, namespaces: ['a'] })).toThrow(/cluster-scoped/);
    expect(bad({}, {} as Reconciler<Page>)).toThrow(/reconcile/);
  });
});

describe('GenericRetry and LinearRateLimiter', () => {
  it('[EP-10] GenericRetry: JOSDK defaults, fluent setters, max interval cap, unlimited attempts', () => {
    const delays = (r: GenericRetry, n: number) => {
      const e = r.initExecution();
      return Array.from({ length: n }, () => e.nextDelay());
    };
    expect(delays(GenericRetry.defaultLimitedExponentialRetry(), 6)).toEqual([
      2000,
      2000,
      3000,
      4500,
      6750,
      undefined,
    ]);
    expect(
      delays(
        new GenericRetry()
          .setInitialInterval(100)
          .setIntervalMultiplier(10)
          .setMaxInterval(5000)
          .setMaxAttempts(4),
        5,
      ),
    ).toEqual([100, 100, 1000, 5000, undefined]);
    expect(delays(GenericRetry.noRetry(), 1)).toEqual([undefined]);
    expect(
      delays(new GenericRetry({ initialInterval: 1 }).withoutMaxAttempts().withLinearRetry(), 100).every(
        (d) => d === 1,
      ),
    ).toBe(true);
    const e = new GenericRetry({ maxAttempts: 1 }).initExecution();
    expect([e.getAttemptCount(), e.isLastAttempt()]).toEqual([0, false]);
    e.nextDelay();
    expect([e.getAttemptCount(), e.isLastAttempt()]).toEqual([1, true]);
  });

  it('[EP-18] LinearRateLimiter: n per window, then the time to the window end; off by default', () => {
    let now = 0;
    const clock = { now: () => now, setTimeout: () => ({}), clearTimeout: () => undefined };
    const limiter = new LinearRateLimiter({ limitForPeriod: 2, refreshPeriodMs: 1000, clock });
    const state = limiter.initState();
    expect([limiter.isLimited(state), limiter.isLimited(state)]).toEqual([undefined, undefined]);
    now = 400;
    expect(limiter.isLimited(state)).toBe(600);
    now = 1000;
    expect(limiter.isLimited(state)).toBeUndefined();
    const off = LinearRateLimiter.deactivatedRateLimiter();
    const s = off.initState();
    for (let i = 0; i < 100; i++) expect(off.isLimited(s)).toBeUndefined();
  });
});
