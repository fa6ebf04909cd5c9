import type { ResourceID } from '../../api/resource-id.js';
import type { Logger } from '../../util/logger.js';
import { noopLogger } from '../../util/logger.js';
import type { EventHandler } from '../event.js';
import type { EventSource, EventSourceHealth, EventSourceStartPriority } from '../event-source.js';

/** Options every built-in event source takes. */
export interface EventSourceOptions {
  /** Name, unique within the controller. Defaults to the key it is registered under. */
  name?: string;
  /** Start order. Defaults to `default`. */
  startPriority?: EventSourceStartPriority;
  /** Where failures are logged (each line names the event source). Defaults to no logging. */
  logger?: Logger;
}

/**
 * Base of the built-in event sources (JOSDK's `AbstractEventSource`): a name, a lifecycle, health,
 * and {@link AbstractEventSource.emit}, which always names a primary resource.
 */
export abstract class AbstractEventSource implements EventSource {
  readonly name?: string;
  readonly startPriority: EventSourceStartPriority;
  protected readonly logger: Logger;
  private handler: EventHandler | undefined;
  private running = false;
  private problem: string | undefined;

  protected constructor(options: EventSourceOptions = {}) {
    this.name = options.name;
    this.startPriority = options.startPriority ?? 'default';
    this.logger = (options.logger ?? noopLogger).child({
      eventSource: options.name ?? this.constructor.name,
    });
  }

  setEventHandler(handler: EventHandler): void {
    this.handler = handler;
  }

  /** Starts the source; subclasses call `super.start()` first. */
  async start(): Promise<void> {
    this.running = true;
  }

  /** Stops the source; subclasses call `super.stop()`. */
  async stop(): Promise<void> {
    this.running = false;
  }

  /** Whether started and not stopped. */
  isRunning(): boolean {
    return this.running;
  }

  health(): EventSourceHealth {
    if (!this.running) return { healthy: false, status: 'stopped' };
    return this.problem === undefined
      ? { healthy: true, status: 'running' }
      : { healthy: false, status: 'failing', reason: this.problem };
  }

  /** Marks the source unhealthy with a reason (shown in runtime info) until {@link markHealthy}. */
  protected markUnhealthy(reason: string): void {
    this.problem = reason;
  }

  /** Clears the unhealthy mark. */
  protected markHealthy(): void {
    this.problem = undefined;
  }

  /** Sends an event for one primary to the controller (dropped before the handler is set). */
  protected emit(primary: ResourceID): void {
    this.handler?.handleEvent({ resourceId: primary });
  }
}

/** The text of a thrown value for a log line. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
