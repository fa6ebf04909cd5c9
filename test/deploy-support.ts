// Helpers of the samples' deployment-asset tests (test/*-deploy.e2e-spec.ts): kubectl against
// the in-process API server, and the permissions a rbac.yaml grants. Test code, not shipped.
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { KubernetesApiError } from '@tosdk/core';

import { kubectl as runKubectl } from './kubectl-support.js';
import type { KubectlRun } from './kubectl-support.js';

/** kubectl's path: `KUBECTL`, else Debian's `/usr/bin/kubectl` (CI installs it). */
export { KUBECTL } from './kubectl-support.js';
export type { KubectlRun };

/** Runs kubectl asynchronously (the API server is in this process), killed after `timeoutMs`. */
export function kubectl(kubeconfig: string, args: string[], timeoutMs = 30_000): Promise<KubectlRun> {
  return runKubectl(kubeconfig, args, { timeoutMs });
}

/** `group/resource[/sub]:verb` for every permission the (Cluster)Roles of a rbac.yaml grant. */
export async function grantedPermissions(rbacPath: string): Promise<Set<string>> {
  const docs = parseAllDocuments(await readFile(rbacPath, 'utf8')).map(
    (d) =>
      d.toJS() as {
        kind: string;
        rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
      },
  );
  const granted = new Set<string>();
  for (const role of docs.filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role'))
    for (const rule of role.rules ?? [])
      for (const group of rule.apiGroups)
        for (const resource of rule.resources)
          for (const verb of rule.verbs) granted.add(`${group}/${resource}:${verb}`);
  return granted;
}

/** The HTTP status a denied call failed with, or `allowed`. */
export const outcome = (p: Promise<unknown>): Promise<number | string> =>
  p.then(
    () => 'allowed',
    (e: unknown) => (e instanceof KubernetesApiError ? e.status : String(e)),
  );
