import type { Webapp } from '../tomcat.resource.js';

/** A Webapp whose spec cannot be deployed. Not retried: only a change of the spec can fix it. */
export class InvalidWebappError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidWebapp';
  constructor(
    /** The field (`spec.url`, `spec.contextPath`, `spec.tomcat`). */
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'InvalidWebappError';
  }
}

/**
 * Checks what the CRD cannot: a context path Tomcat can map to a WAR name of its own (not `/ROOT`,
 * in any case, which is the WAR of `/`), an http(s) URL.
 * @throws InvalidWebappError naming the field.
 */
export function validateWebapp(webapp: Webapp): void {
  const spec = webapp.spec;
  if (!spec?.tomcat) throw new InvalidWebappError('spec.tomcat', 'name the Tomcat to deploy into');
  if (!spec.contextPath || !/^\/([A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*)?$/.test(spec.contextPath))
    throw new InvalidWebappError(
      'spec.contextPath',
      `"${spec.contextPath ?? ''}" is not a context path: use / or /segment[/segment...] of letters, digits, . _ -`,
    );
  // Tomcat serves `/` from ROOT.war: a context path `/ROOT` would be that same WAR
  if (spec.contextPath.toLowerCase() === '/root')
    throw new InvalidWebappError(
      'spec.contextPath',
      `"${spec.contextPath}" is the WAR Tomcat serves at / (ROOT.war): use / for the root, or another path`,
    );
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    throw new InvalidWebappError('spec.url', `"${spec.url}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidWebappError('spec.url', `"${spec.url}" must be an http or https URL`);
  if (/\s/.test(spec.url)) throw new InvalidWebappError('spec.url', 'must not contain spaces');
}
