import type { WebPage } from './webpage.resource.js';

/** Which rule a WebPage broke. */
export type InvalidWebPageReason = 'BlankHtml' | 'MissingHtml' | 'InvalidName';

/**
 * A WebPage that no retry can make work: the user has to change it. The reconcilers throw it, and
 * `updateErrorStatus` turns it into an error status and a Warning event without retrying.
 */
export class InvalidWebPageError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidWebPage';

  constructor(
    /** Which rule was broken. */
    readonly reason: InvalidWebPageReason,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidWebPageError';
  }
}

// The Service and the pod labels carry the WebPage's name: a DNS-1035 label (what a Service name must be).
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Checks what the CRD schema cannot: the page is not blank (only whitespace) and the name can name
 * a Service (a DNS-1035 label: lower-case letters, digits and `-`, starting with a letter, at most
 * 63 characters). The schema already rejects a missing or empty `spec.html` and pages over 512 KiB.
 *
 * @throws InvalidWebPageError naming the broken rule and how to fix it.
 */
export function validateWebPage(page: WebPage): void {
  const name = page.metadata?.name ?? '';
  if (name.length > 63 || !DNS_1035_LABEL.test(name)) {
    throw new InvalidWebPageError(
      'InvalidName',
      `metadata.name "${name}" cannot name the page's Service: use at most 63 lower-case letters, digits and '-', starting with a letter`,
    );
  }
  const html: unknown = page.spec?.html;
  if (typeof html !== 'string') {
    throw new InvalidWebPageError('MissingHtml', 'spec.html is missing: set it to the page to serve');
  }
  if (html.trim() === '') {
    throw new InvalidWebPageError('BlankHtml', 'spec.html is blank: set it to the page to serve');
  }
}
