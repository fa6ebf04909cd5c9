import { homedir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigNotFoundError } from '../errors.js';
import { kubeConfigNotFoundMessage } from '../operator.messages.js';

// not ES imports: an ES import of node:fs loads fs/promises and streams, and @kubernetes/client-node
// is loaded only when this function runs (~60 MB of RSS an operator module that reads its
// configuration with core's loadKubeConfig() never pays). require() of the ES package (Node >= 22.12)
// gives the same module instance, and so the same KubeConfig class, as an import of it.
const { existsSync } = process.getBuiltinModule('node:fs');
const clientNode = (): typeof import('@kubernetes/client-node') =>
  process.getBuiltinModule('node:module').createRequire(import.meta.url)(
    '@kubernetes/client-node',
  ) as typeof import('@kubernetes/client-node');

/**
 * Loads the KubeConfig the way kubectl finds it: `KUBECONFIG` (path list; files that do not exist are
 * skipped), else `~/.kube/config`, else the in-cluster service account (`KUBERNETES_SERVICE_HOST`),
 * also when every file `KUBECONFIG` names is missing. Unlike `loadFromDefault`, it
 * never falls back to `localhost:8080`. It returns a `KubeConfig` of @kubernetes/client-node (loaded
 * on the first call), for apps that use client-node's API clients too; `OperatorModule` itself reads
 * its configuration with `loadKubeConfig()` of `@tosdk/core`, which finds the same configuration
 * without loading client-node (unless exec plugins, OIDC or `proxy-url` need it).
 *
 * @throws KubeConfigNotFoundError when none is found or the file cannot be read.
 */
export function loadClientNodeKubeConfig(env: Record<string, string | undefined> = process.env): KubeConfig {
  const { KubeConfig } = clientNode();
  const kc = new KubeConfig();
  try {
    const paths = env['KUBECONFIG']?.split(process.platform === 'win32' ? ';' : ':').filter(Boolean);
    if (paths && paths.length > 0) {
      const existing = paths.filter((p) => existsSync(p));
      if (existing.length === 0) {
        // client-go's loading rules skip missing files; with none left a pod uses its service account
        if (env['KUBERNETES_SERVICE_HOST']) return inCluster(kc, env);
        throw new KubeConfigNotFoundError(`KUBECONFIG names no existing file (${env['KUBECONFIG']})`);
      }
      kc.loadFromFile(existing[0]);
      for (const p of existing.slice(1)) {
        const more = new KubeConfig();
        more.loadFromFile(p);
        kc.mergeConfig(more);
      }
      return kc;
    }
    const home = join(env['HOME'] ?? homedir(), '.kube', 'config');
    if (existsSync(home)) {
      kc.loadFromFile(home);
      return kc;
    }
    if (env['KUBERNETES_SERVICE_HOST']) return inCluster(kc, env);
  } catch (error) {
    if (error instanceof KubeConfigNotFoundError) throw error;
    throw new KubeConfigNotFoundError(
      `the KubeConfig could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  throw new KubeConfigNotFoundError(kubeConfigNotFoundMessage());
}

/**
 * client-node's in-cluster configuration, its server taken from `env` (client-node reads
 * `process.env`): `https://<KUBERNETES_SERVICE_HOST>:<KUBERNETES_SERVICE_PORT>`, an IPv6 host in brackets.
 */
function inCluster(kc: KubeConfig, env: Record<string, string | undefined>): KubeConfig {
  kc.loadFromCluster();
  const host = env['KUBERNETES_SERVICE_HOST'] ?? '';
  const port = env['KUBERNETES_SERVICE_PORT'] ?? '443';
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  kc.loadFromOptions({
    clusters: kc.clusters.map((c) => ({ ...c, server })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return kc;
}
