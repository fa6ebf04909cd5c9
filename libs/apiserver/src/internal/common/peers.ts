/**
 * The patch/, crd/, selectors/ and rbac/ modules as the engine uses them. The engine reaches them
 * only through a {@link Peers} value, so tests and future variants can swap one implementation.
 */
import * as crd from '../../crd/index.js';
import * as patch from '../../patch/index.js';
import * as rbac from '../../rbac/index.js';
import * as selectors from '../../selectors/index.js';

export type { CompiledCrd, CompiledVersion } from '../../crd/index.js';
export type { AuthorizationAttributes, RbacObjects } from '../../rbac/index.js';

/** The peer modules. */
export interface Peers {
  patch: typeof patch;
  crd: typeof crd;
  selectors: typeof selectors;
  rbac: typeof rbac;
}

const PEERS: Peers = { patch, crd, selectors, rbac };

/** The peer modules of this build. */
export function loadPeers(): Promise<Peers> {
  return Promise.resolve(PEERS);
}
