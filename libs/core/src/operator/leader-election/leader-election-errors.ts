/** Thrown by {@link leaderElectionConfiguration} when an option is missing or out of range. */
export class InvalidLeaderElectionConfigurationError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidLeaderElectionConfiguration';
  constructor(message: string) {
    super(`invalid leader election configuration: ${message}`);
    this.name = 'InvalidLeaderElectionConfigurationError';
  }
}

/** One verb on leases the operator's identity may not use. */
export type LeaseVerb = 'get' | 'create' | 'update';

/**
 * Thrown by `LeaderElector.checkPermissions()` when the operator's identity lacks a verb leader
 * election needs on `leases.coordination.k8s.io` in the lease namespace. The message names the
 * missing verbs and the RBAC rule to add.
 */
export class LeaderElectionPermissionError extends Error {
  /** Stable error code. */
  readonly code = 'LeaderElectionPermission';
  constructor(
    /** The verbs the server denied. */
    readonly missingVerbs: readonly LeaseVerb[],
    /** The lease namespace the verbs were checked in. */
    readonly namespace: string,
    /** The lease name. */
    readonly leaseName: string,
    /** Reasons the server gave for the denials, if any. */
    readonly reasons: readonly string[] = [],
  ) {
    super(
      `leader election needs permission to ${missingVerbs.join(', ')} leases.coordination.k8s.io ` +
        `in namespace "${namespace}" (lease "${leaseName}"), which was denied. Add this rule to a Role ` +
        `in "${namespace}" bound to the operator's service account: ` +
        `{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] }` +
        (reasons.length ? `. Server said: ${reasons.join('; ')}` : ''),
    );
    this.name = 'LeaderElectionPermissionError';
  }
}

/** Thrown by `checkPermissions()` when the access review itself failed (server unreachable, 5xx). */
export class LeaderElectionPermissionCheckError extends Error {
  /** Stable error code. */
  readonly code = 'LeaderElectionPermissionCheck';
  constructor(
    message: string,
    /** The underlying failure. */
    override readonly cause: unknown,
  ) {
    super(message);
    this.name = 'LeaderElectionPermissionCheckError';
  }
}

/** A `LeaderElector` method was called in a state that does not allow it (e.g. `run()` twice). */
export class LeaderElectionStateError extends Error {
  /** Stable error code. */
  readonly code = 'LeaderElectionState';
  constructor(message: string) {
    super(message);
    this.name = 'LeaderElectionStateError';
  }
}
