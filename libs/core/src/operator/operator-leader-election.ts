import type { LeaderElectionConfiguration } from './leader-election/leader-election-configuration.js';

/**
 * Leader election of an {@link Operator}: a {@link LeaderElectionConfiguration} plus what the
 * operator does when it loses the lease.
 */
export interface OperatorLeaderElectionConfiguration extends LeaderElectionConfiguration {
  /**
   * Called with a non-zero exit code (1) when this instance loses leadership (renewals failed until
   * the renew deadline, or the lease names another holder) and `exitOnStopLeading` is on, after
   * event processing has stopped. Replace it to end the process your own way (flush logs, close
   * servers, then exit) or, in tests, to observe the loss. It is never called on a graceful
   * `stop()`. Defaults to `process.exit`.
   */
  exit?: (code: number) => void;
}
