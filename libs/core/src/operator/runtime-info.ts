import type { EventSourceHealth } from '../event/event-source.js';

/** Health of one event source, named. */
export interface NamedEventSourceHealth extends EventSourceHealth {
  /** The controller. */
  readonly controller: string;
  /** The event source. */
  readonly eventSource: string;
}

/**
 * What a running operator reports about itself (JOSDK's `RuntimeInfo`), e.g. for liveness and
 * readiness probes.
 */
export interface RuntimeInfo {
  /** Whether `start()` completed and `stop()` was not called. */
  isStarted(): boolean;
  /** Names of the registered controllers. */
  registeredControllers(): string[];
  /** Health of every event source of every controller: controller name → event source name → health. */
  eventSourceHealth(): Record<string, Record<string, EventSourceHealth>>;
  /** Whether every event source of every controller is healthy. */
  allEventSourcesHealthy(): boolean;
  /** The unhealthy event sources with their reasons. */
  unhealthyEventSources(): NamedEventSourceHealth[];
  /** Whether leader election is configured. */
  isLeaderElectionEnabled(): boolean;
  /** Whether this instance processes events: the leader, or always without leader election (once started). */
  isLeader(): boolean;
}
