import type { Logger } from '../../util/logger.js';
import {
  SHARD_CONTROLLERS_ANNOTATION,
  SHARD_KINDS_ANNOTATION,
  SHARD_VIRTUAL_NODES_ANNOTATION,
} from '../sharding-configuration.js';
import type { ResolvedShardingConfiguration } from '../sharding-configuration.js';
import type { ResourceType } from '../../api/resource-type.js';

/** What the group's settings read of a sharded controller (the shape of `ShardedController`, declared
 * here so this module does not import shard-membership.ts, which imports it). */
interface ControllerOfGroup {
  readonly name: string;
  readonly resourceType: Pick<ResourceType, 'group' | 'plural'>;
}

/** What a member published about itself (undefined: not published, e.g. an older version). */
export interface MemberSettings {
  readonly virtualNodes: string | undefined;
  readonly controllers: string | undefined;
  readonly kinds: string | undefined;
}

/** A resource kind as `plural.group` (`plural` for the core group): versions of one kind are one kind. */
const kindOf = (type: ControllerOfGroup['resourceType']): string =>
  type.group ? `${type.plural}.${type.group}` : type.plural;

const parse = (value: string | undefined): string[] | undefined => {
  if (value === undefined) return undefined;
  try {
    const list: unknown = JSON.parse(value);
    return Array.isArray(list) ? list.map(String) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The settings every member publishes in its Lease and compares with the others': `virtualNodes`
 * (members must agree or no ring settles), the controller names and their primary kinds.
 *
 * A member whose primary kinds are all different from this replica's cannot reconcile any resource
 * this one does (another operator given the same `sharding.name`, e.g. the default): it is left out
 * of this replica's ring, so each operator splits its resources among its own replicas. A member
 * sharing some kinds but running other controllers stays in the ring (splitting one kind between
 * two rings could reconcile a resource twice) and is reported as an error naming `sharding.name`.
 */
export class GroupSettings {
  private controllers: string[] | undefined;
  private kinds: string[] | undefined;
  /** Mismatches already logged (once per member incarnation and value). */
  private readonly reported = new Set<string>();

  constructor(
    private readonly configuration: ResolvedShardingConfiguration,
    private readonly logger: Logger,
  ) {}

  /** Sets this replica's controllers (before it joins). */
  setControllers(controllers: readonly ControllerOfGroup[]): void {
    this.controllers = [...new Set(controllers.map((c) => c.name))].sort();
    this.kinds = [...new Set(controllers.map((c) => kindOf(c.resourceType)))].sort();
  }

  /** The annotations this replica publishes. */
  annotations(): Record<string, string> {
    const published: Record<string, string> = {
      [SHARD_VIRTUAL_NODES_ANNOTATION]: String(this.configuration.virtualNodes),
    };
    if (this.controllers) published[SHARD_CONTROLLERS_ANNOTATION] = JSON.stringify(this.controllers);
    if (this.kinds) published[SHARD_KINDS_ANNOTATION] = JSON.stringify(this.kinds);
    return published;
  }

  /** A member's settings from its Lease annotations. */
  read(annotations: Record<string, string | undefined>): MemberSettings {
    return {
      virtualNodes: annotations[SHARD_VIRTUAL_NODES_ANNOTATION],
      controllers: annotations[SHARD_CONTROLLERS_ANNOTATION],
      kinds: annotations[SHARD_KINDS_ANNOTATION],
    };
  }

  /**
   * Whether the member belongs in this replica's ring (false only when both published their kinds
   * and none is shared); logs what does not match.
   */
  check(identity: string, incarnation: string | undefined, settings: MemberSettings): boolean {
    const c = this.configuration;
    const theirKinds = parse(settings.kinds);
    if (this.kinds && theirKinds && !theirKinds.some((k) => this.kinds!.includes(k))) {
      this.once(`${identity}/${incarnation}/kinds`, () =>
        this.logger.warn(
          `member "${identity}" of shard group "${c.name}" reconciles other resources (${theirKinds.join(', ')}; ` +
            `this replica: ${this.kinds!.join(', ')}): another operator given the same sharding.name, left out ` +
            'of this ring. Give each operator its own sharding.name (TOSDK_SHARDING_NAME)',
          { member: identity },
        ),
      );
      return false;
    }
    const theirs = settings.virtualNodes;
    if (theirs !== undefined && theirs !== String(c.virtualNodes)) {
      this.once(`${identity}/${incarnation}/virtualNodes=${theirs}`, () =>
        this.logger.error(
          `member "${identity}" of the shard group runs with sharding.virtualNodes ${theirs}, this replica with ` +
            `${c.virtualNodes}: the replicas compute different rings and never settle (keys they would gain ` +
            'are not reconciled). Give every replica the same sharding.virtualNodes (TOSDK_SHARDING_VIRTUAL_NODES)',
          { code: 'ShardingSettingsMismatch', member: identity, theirs, ours: c.virtualNodes },
        ),
      );
    }
    const theirControllers = parse(settings.controllers);
    const ours = this.controllers;
    if (ours && theirControllers && JSON.stringify(theirControllers) !== JSON.stringify(ours)) {
      this.once(`${identity}/${incarnation}/controllers`, () =>
        this.logger.error(
          `member "${identity}" of shard group "${c.name}" runs controllers ${theirControllers.join(', ')}, ` +
            `this replica ${ours.join(', ')}: resources of a controller some members lack are assigned to them ` +
            'and not reconciled. Run one version of the operator per sharding.name (TOSDK_SHARDING_NAME), or ' +
            'give different operators different names',
          { code: 'ShardingSettingsMismatch', member: identity, theirs: theirControllers, ours },
        ),
      );
    }
    return true;
  }

  private once(report: string, log: () => void): void {
    if (this.reported.has(report)) return;
    if (this.reported.size > 256) this.reported.clear();
    this.reported.add(report);
    log();
  }
}
