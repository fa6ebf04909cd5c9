import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { HealthIndicatorResult } from '@nestjs/terminus';
import { Operator } from '@tosdk/core';

/**
 * Terminus indicators of the operator (JOSDK's runtime info probes).
 * - liveness: up while the operator runs (started and not stopped), down before start and after stop.
 * - readiness: up when started and every event source of every controller is healthy; down before
 *   start, after stop, or naming each unhealthy event source with its status and reason.
 * A warm standby under leader election is live and ready (its caches are synced); `leader` in the
 * details says whether it processes events. With sharding, `shard` in the details is the replica's
 * shard status (members, ring, acknowledged, settled).
 */
@Injectable()
export class OperatorHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly operator: Operator,
  ) {}

  /** Liveness under `key` (default `operator`). */
  isLive<const Key extends string = 'operator'>(key: Key = 'operator' as Key): HealthIndicatorResult<Key> {
    const info = this.operator.runtimeInfo;
    const session = this.health.check(key);
    if (!info.isStarted()) return session.down({ started: false, message: 'the operator is not running' });
    return session.up({ started: true, leader: info.isLeader(), ...this.shard() });
  }

  private shard(): { shard?: ReturnType<NonNullable<Operator['sharding']>['status']> } {
    return this.operator.sharding ? { shard: this.operator.sharding.status() } : {};
  }

  /** Readiness under `key` (default `operator`). */
  isReady<const Key extends string = 'operator'>(key: Key = 'operator' as Key): HealthIndicatorResult<Key> {
    const info = this.operator.runtimeInfo;
    const session = this.health.check(key);
    const controllers = info.registeredControllers();
    if (!info.isStarted()) {
      return session.down({ started: false, controllers, message: 'the operator is not running' });
    }
    const unhealthy = info.unhealthyEventSources().map((h) => ({
      controller: h.controller,
      eventSource: h.eventSource,
      status: h.status,
      ...(h.reason ? { reason: h.reason } : {}),
    }));
    if (unhealthy.length > 0) {
      return session.down({
        started: true,
        controllers,
        unhealthy,
        message: `unhealthy event sources: ${unhealthy.map((u) => `${u.controller}/${u.eventSource} (${u.status})`).join(', ')}`,
      });
    }
    return session.up({ started: true, leader: info.isLeader(), controllers, ...this.shard() });
  }
}
