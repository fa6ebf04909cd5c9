import type { Context } from '../api/context.js';
import { ResourceID } from '../api/resource-id.js';
import type { KubernetesResource } from '../api/resource-type.js';
import { isBulkDependentResource } from './bulk-dependent-resource.js';
import type { BulkDependentResource } from './bulk-dependent-resource.js';
import { reconcileResult, traitsOf } from './dependent-resource.js';
import type {
  DependentOperation,
  DependentResource,
  DependentTraits,
  MatchResult,
  ReconcileResult,
} from './dependent-resource.js';
import { DependentResourceError } from './errors.js';
import { deepEqual } from './internal/json.js';

/** Options every dependent takes. */
export interface DependentResourceOptions {
  /** Name unique within a workflow. Defaults to the class name. */
  name?: string;
}

/**
 * The usual flow of a dependent (JOSDK's `AbstractDependentResource`): compute the desired state,
 * create the secondary when missing (if a creator), update it when it does not match (if an
 * updater), leave it otherwise. Subclasses give {@link AbstractDependentResource.desired} and
 * their trait methods (`create`, `update`, `delete`) or explicit {@link DependentTraits}; a bulk
 * dependent also implements {@link BulkDependentResource}.
 *
 * @typeParam R - the secondary's type.
 * @typeParam P - the primary kind.
 */
export abstract class AbstractDependentResource<
  R,
  P extends KubernetesResource = KubernetesResource,
> implements DependentResource<R, P> {
  readonly name: string;
  /** Explicit traits; when undefined they follow from the methods the subclass has (`create`, `update`, `delete`). */
  readonly traits?: DependentTraits;

  constructor(options: DependentResourceOptions = {}) {
    this.name = options.name ?? this.constructor.name;
  }

  /** The desired state of the secondary for a primary. Only called when needed. */
  protected abstract desired(primary: P, context: Context<P>): R | Promise<R>;

  /** The secondaries of this dependent's kind that belong to the primary (from a cache). */
  protected abstract secondaryResources(primary: P, context: Context<P>): R[];

  async reconcile(primary: P, context: Context<P>): Promise<ReconcileResult<R>> {
    if (isBulkDependentResource<R, P>(this)) return this.reconcileBulk(this, primary, context);
    const actual = this.getSecondaryResource(primary, context);
    const entry = await this.reconcileOne(actual, primary, context, () => this.desired(primary, context));
    return reconcileResult(entry);
  }

  /**
   * The secondary of this dependent, picked by {@link AbstractDependentResource.selectTargetSecondaryResource}.
   * @throws DependentResourceError when several secondaries exist and none or several match.
   */
  getSecondaryResource(primary: P, context: Context<P>): R | undefined {
    return this.selectTargetSecondaryResource(this.secondaryResources(primary, context), primary, context);
  }

  /**
   * Picks this dependent's secondary among those of its kind (JOSDK's
   * `selectTargetSecondaryResource`): the only one, else the one matching the desired state's
   * identity (see {@link AbstractDependentResource.isTargetOf}). Override for a cheaper choice.
   */
  protected selectTargetSecondaryResource(secondaries: R[], primary: P, context: Context<P>): R | undefined {
    if (secondaries.length <= 1 && !this.alwaysSelectByDesired()) return secondaries[0];
    if (secondaries.length === 0) return undefined;
    const desired = this.desired(primary, context);
    if (desired instanceof Promise) {
      throw new DependentResourceError(
        'AmbiguousDependentSecondary',
        `dependent ${this.name}: ${secondaries.length} secondaries and an async desired(); override selectTargetSecondaryResource (or targetSecondaryResourceID) to choose`,
        this.name,
      );
    }
    const targets = secondaries.filter((s) => this.isTargetOf(s, desired));
    if (targets.length > 1) {
      throw new DependentResourceError(
        'AmbiguousDependentSecondary',
        `dependent ${this.name}: ${targets.length} secondaries match the desired state; override selectTargetSecondaryResource to choose`,
        this.name,
      );
    }
    return targets[0];
  }

  /** Whether several secondaries of the kind may exist, so the choice always goes through the desired state. Defaults to false. */
  protected alwaysSelectByDesired(): boolean {
    return false;
  }

  /** Whether a secondary is the one the desired state describes. Defaults to deep equality. */
  protected isTargetOf(secondary: R, desired: R): boolean {
    return deepEqual(secondary, desired);
  }

  /**
   * Whether the actual secondary matches the desired state (JOSDK's `Matcher`); override to
   * customise. Defaults to {@link AbstractDependentResource.matchDesired} with the desired state.
   */
  async match(actual: R, primary: P, context: Context<P>): Promise<MatchResult<R>> {
    const desired = this.present(await this.desired(primary, context), 'desired()', primary);
    return { matched: await this.matchDesired(actual, desired, primary, context), computedDesired: desired };
  }

  /** Compares an actual secondary with a desired state. Defaults to deep equality. */
  protected matchDesired(
    actual: R,
    desired: R,
    _primary: P,
    _context: Context<P>,
  ): boolean | Promise<boolean> {
    return deepEqual(actual, desired);
  }

  /**
   * Called after the secondary was created or updated (e.g. to cache it), with the version an
   * update started from (`previous`, undefined after a create). Defaults to nothing.
   */
  protected onCreatedOrUpdated(
    _resource: R,
    _primary: P,
    _context: Context<P>,
    _operation: 'created' | 'updated',
    _previous?: R,
  ): void | Promise<void> {}

  private async reconcileOne(
    actual: R | undefined,
    primary: P,
    context: Context<P>,
    desiredOf: () => R | Promise<R>,
    bulkMatch?: (actual: R, desired: R) => boolean | Promise<boolean>,
  ): Promise<{ operation: DependentOperation; resource: R | undefined }> {
    const traits = traitsOf(this);
    const self = this as unknown as Partial<{
      create(desired: R, primary: P, context: Context<P>): Promise<R>;
      update(actual: R, desired: R, primary: P, context: Context<P>): Promise<R>;
    }>;
    if (actual === undefined) {
      if (!traits.creator || !self.create) return { operation: 'none', resource: undefined };
      const desired = this.present(await desiredOf(), 'desired()', primary);
      const created = this.present(await self.create(desired, primary, context), 'create()', primary);
      await this.onCreatedOrUpdated(created, primary, context, 'created');
      return { operation: 'created', resource: created };
    }
    if (!traits.updater || !self.update) return { operation: 'none', resource: actual };
    let desired: R;
    if (bulkMatch) {
      desired = this.present(await desiredOf(), 'desired()', primary);
      if (await bulkMatch(actual, desired)) return { operation: 'none', resource: actual };
    } else {
      const result = await this.match(actual, primary, context);
      if (result.matched) return { operation: 'none', resource: actual };
      desired = this.present(result.computedDesired ?? (await desiredOf()), 'desired()', primary);
    }
    const updated = this.present(await self.update(actual, desired, primary, context), 'update()', primary);
    await this.onCreatedOrUpdated(updated, primary, context, 'updated', actual);
    return { operation: 'updated', resource: updated };
  }

  /**
   * The value, when there is one (JOSDK's `throwIfNull`).
   * @throws DependentResourceError (`MissingResource`) naming the method, the dependent and the primary.
   */
  protected present<T>(value: T | null | undefined, what: string, primary: P): T {
    if (value !== undefined && value !== null) return value;
    throw new DependentResourceError(
      'MissingResource',
      `dependent ${this.name}: ${what} returned ${String(value)} for primary ${ResourceID.fromResource(primary).key}; return the ${what === 'desired()' ? 'desired state' : 'resource written'}`,
      this.name,
    );
  }

  private async reconcileBulk(
    bulk: BulkDependentResource<R, P>,
    primary: P,
    context: Context<P>,
  ): Promise<ReconcileResult<R>> {
    const actual = bulk.getSecondaryResources(primary, context);
    const traits = traitsOf(this);
    // as JOSDK's BulkDependentResourceReconciler: a read-only bulk dependent has nothing desired; it
    // reports the secondaries it has
    if (!traits.creator && !traits.updater && !traits.deleter) {
      return reconcileResult(
        ...[...actual.values()].map((resource) => ({ operation: 'none' as const, resource })),
      );
    }
    const desired = await bulk.desiredResources(primary, context);
    // as JOSDK's BulkDependentResourceReconciler: the resources no longer desired go first, so an
    // item that fails to write does not keep them
    if (traits.deleter) {
      const extra = new Map([...actual].filter(([key]) => !desired.has(key)));
      await this.deleteBulkResources(bulk, extra, primary, context);
    }
    const settled = await Promise.allSettled(
      [...desired].map(([key, d]) =>
        this.reconcileOne(
          actual.get(key),
          primary,
          context,
          () => d,
          (a, des) =>
            bulk.matchBulk
              ? bulk.matchBulk(a, des, primary, context)
              : this.matchDesired(a, des, primary, context),
        ),
      ),
    );
    return reconcileResult(...valuesOrThrow(settled));
  }

  /**
   * What `delete` does for a bulk dependent (JOSDK's `BulkDependentResourceReconciler.delete`):
   * {@link BulkDependentResource.deleteTargetResource} for every actual secondary. Each is
   * attempted; the first failure is thrown afterwards.
   */
  protected async deleteAllBulk(
    bulk: BulkDependentResource<R, P>,
    primary: P,
    context: Context<P>,
  ): Promise<void> {
    await this.deleteBulkResources(bulk, bulk.getSecondaryResources(primary, context), primary, context);
  }

  private async deleteBulkResources(
    bulk: BulkDependentResource<R, P>,
    resources: ReadonlyMap<string, R>,
    primary: P,
    context: Context<P>,
  ): Promise<void> {
    valuesOrThrow(
      await Promise.allSettled(
        [...resources].map(([key, resource]) => bulk.deleteTargetResource(primary, resource, key, context)),
      ),
    );
  }
}

/** The values of settled promises; throws the reason of the first rejected one (all were awaited). */
function valuesOrThrow<T>(settled: readonly PromiseSettledResult<T>[]): T[] {
  const values: T[] = [];
  for (const s of settled) {
    if (s.status === 'rejected') throw s.reason;
    values.push(s.value);
  }
  return values;
}
