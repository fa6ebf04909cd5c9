import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import type { HealthCheckResult } from '@nestjs/terminus';
import { OperatorHealthIndicator } from './operator-health.indicator.js';

/**
 * `GET /health/liveness` and `GET /health/readiness`: 200 with Terminus's body when up, 503 when
 * down (the body names the unhealthy event sources). Enabled by `OperatorHealthModule.forRoot()`;
 * replace it with your own controller using {@link OperatorHealthIndicator}.
 */
@Controller('health')
export class OperatorHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: OperatorHealthIndicator,
  ) {}

  /** Kubernetes liveness probe. */
  @Get('liveness')
  @HealthCheck()
  liveness(): Promise<HealthCheckResult> {
    return this.health.check([() => this.indicator.isLive()]);
  }

  /** Kubernetes readiness probe. */
  @Get('readiness')
  @HealthCheck()
  readiness(): Promise<HealthCheckResult> {
    return this.health.check([() => this.indicator.isReady()]);
  }
}
