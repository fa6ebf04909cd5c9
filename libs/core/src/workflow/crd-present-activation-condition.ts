import type { Context } from '../api/context.js';
import { ResourceID } from '../api/resource-id.js';
import { defineResource } from '../api/resource-type.js';
import type { KubernetesResource } from '../api/resource-type.js';
import type { DependentResource } from '../dependent/dependent-resource.js';
import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import type { Condition } from './condition.js';
import { WorkflowUsageError } from './errors.js';

const CRD = defineResource<KubernetesResource>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

/** Options of a {@link CRDPresentActivationCondition}. */
export interface CRDPresentActivationConditionOptions {
  /** Most checks while the CRD is missing; then it counts as absent for good. Defaults to 10 (JOSDK's). */
  checkLimit?: number;
  /** Least time between two checks while it is missing. Defaults to 10,000 ms (JOSDK's `DEFAULT_CRD_CHECK_INTERVAL`). */
  checkIntervalMs?: number;
  /** Time source. Defaults to the system clock. */
  clock?: Clock;
}

interface CheckState {
  present: boolean;
  checks: number;
  lastCheck: number;
  inFlight?: Promise<boolean>;
}

/**
 * An activation condition that holds when the CustomResourceDefinition of the dependent's kind is
 * on the cluster (JOSDK's `CRDPresentActivationCondition`). A CRD once found stays found; while
 * missing it is checked again at most `checkLimit` times, at least `checkIntervalMs` apart, and the
 * answer in between is the last one. State is kept per CRD name and condition instance.
 */
export class CRDPresentActivationCondition<
  P extends KubernetesResource = KubernetesResource,
> implements Condition<unknown, P> {
  private readonly states = new Map<string, CheckState>();
  private readonly checkLimit: number;
  private readonly checkIntervalMs: number;
  private readonly clock: Clock;

  constructor(options: CRDPresentActivationConditionOptions = {}) {
    this.checkLimit = options.checkLimit ?? 10;
    this.checkIntervalMs = options.checkIntervalMs ?? 10_000;
    this.clock = options.clock ?? systemClock;
  }

  /** @throws WorkflowUsageError when the dependent has no Kubernetes resource type. */
  async isMet(dependent: DependentResource<unknown, P>, _primary: P, context: Context<P>): Promise<boolean> {
    const type = dependent.resourceType;
    if (!type) {
      throw new WorkflowUsageError(
        `CRDPresentActivationCondition on dependent ${dependent.name}: it has no Kubernetes resource type`,
      );
    }
    if (!type.group) return true; // core kinds need no CRD
    const name = `${type.plural}.${type.group}`;
    let state = this.states.get(name);
    if (!state) this.states.set(name, (state = { present: false, checks: 0, lastCheck: -Infinity }));
    if (state.present) return true;
    if (state.inFlight) return state.inFlight;
    const now = this.clock.now();
    if (state.checks >= this.checkLimit || now - state.lastCheck < this.checkIntervalMs) return false;
    const s = state;
    s.checks++;
    s.lastCheck = now;
    s.inFlight = context.client
      .get(CRD, new ResourceID(name))
      .then((crd) => (s.present = crd !== undefined))
      .finally(() => (s.inFlight = undefined));
    return s.inFlight;
  }
}
