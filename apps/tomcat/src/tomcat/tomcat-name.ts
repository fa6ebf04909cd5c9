import type { Tomcat } from '../tomcat.resource.js';

/** Longest name of a Service (an RFC 1035 label), and so of a Tomcat. */
export const MAX_TOMCAT_NAME = 63;

const RFC_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The Tomcat's name cannot name its Service (a Service name is an RFC 1035 label: lowercase
 * letters, digits and `-`, starting with a letter, at most 63 characters), while a Tomcat, like any
 * custom resource, may have a DNS subdomain name (`web.v1`). Not retried: only another name helps.
 */
export class InvalidTomcatNameError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidTomcatName';
  constructor(
    /** The Tomcat's name. */
    readonly tomcatName: string,
    options?: { cause?: unknown },
  ) {
    super(
      `metadata.name "${tomcatName}" cannot name the Tomcat's Service: it must be an RFC 1035 label (lowercase letters, digits and '-', starting with a letter and ending with a letter or digit, at most ${MAX_TOMCAT_NAME} characters); create the Tomcat under another name`,
      options,
    );
    this.name = 'InvalidTomcatNameError';
  }
}

/** The {@link InvalidTomcatNameError} of a Tomcat whose name cannot name its Service, else undefined. */
export function tomcatNameProblem(tomcat: Tomcat, cause?: unknown): InvalidTomcatNameError | undefined {
  const name = tomcat.metadata?.name ?? '';
  if (name.length <= MAX_TOMCAT_NAME && RFC_1035_LABEL.test(name)) return undefined;
  return new InvalidTomcatNameError(name, cause === undefined ? undefined : { cause });
}
