/**
 * How the sample implements the same behaviour (JOSDK's three WebPage reconcilers):
 * - `lowlevel`: its own informer event sources and code that compares and writes each secondary.
 * - `managed`: managed dependent resources in a workflow declared on the reconciler; the Ingress
 *   behind a reconcile precondition (`spec.exposed`).
 * - `standalone`: standalone dependent resources in a workflow built with `WorkflowBuilder` and run
 *   by the reconciler.
 */
export type WebPageFlavour = 'lowlevel' | 'managed' | 'standalone';

/** Every flavour. */
export const WEBPAGE_FLAVOURS: readonly WebPageFlavour[] = ['lowlevel', 'managed', 'standalone'];

/** The variable that selects the flavour. */
export const FLAVOUR_VARIABLE = 'WEBPAGE_FLAVOUR';

/** The flavour used when {@link FLAVOUR_VARIABLE} is not set. */
export const DEFAULT_FLAVOUR: WebPageFlavour = 'managed';

/** Thrown when `WEBPAGE_FLAVOUR` names no flavour. */
export class InvalidFlavourError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidWebPageFlavour';
  constructor(value: string) {
    super(`${FLAVOUR_VARIABLE}="${value}" names no flavour: use one of ${WEBPAGE_FLAVOURS.join(', ')}`);
    this.name = 'InvalidFlavourError';
  }
}

/**
 * The flavour selected by `WEBPAGE_FLAVOUR` (case-insensitive, surrounding spaces ignored);
 * {@link DEFAULT_FLAVOUR} when unset or empty.
 * @throws InvalidFlavourError for any other value.
 */
export function flavourFromEnvironment(
  env: Record<string, string | undefined> = process.env,
): WebPageFlavour {
  const raw = env[FLAVOUR_VARIABLE]?.trim().toLowerCase();
  if (!raw) return DEFAULT_FLAVOUR;
  if ((WEBPAGE_FLAVOURS as readonly string[]).includes(raw)) return raw as WebPageFlavour;
  throw new InvalidFlavourError(env[FLAVOUR_VARIABLE]!);
}
