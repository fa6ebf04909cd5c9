// Child process of wire-review.spec.ts: a client run the way an operator runs it, so that what only
// the process shows (its stderr, whether it exits by itself) can be checked. Runs the TypeScript
// sources of @tosdk/core in the tree (node --experimental-transform-types; this hook maps the
// sources' `.js` imports to their `.ts` files), so the transport under test is the current one.
// argv: kubeconfig path, then the names to GET one after the other (on one kept socket).
// Prints "done" and the names it got on one line, then returns without closing the client.
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
      const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
      if (existsSync(fileURLToPath(ts))) return next(ts.href, context);
    }
    return next(specifier, context);
  },
});

const { KubernetesClient, loadKubeConfig, ResourceID, ResourceTypes } = await import(
  new URL('../../index.ts', import.meta.url).href
);

const [kubeconfig, ...names] = process.argv.slice(2);
const client = KubernetesClient.fromKubeConfig(
  loadKubeConfig({ env: { KUBECONFIG: kubeconfig, HOME: '/nonexistent' } }),
  { retry: false, requestTimeoutMs: 15_000 },
);
const got = [];
for (const name of names) {
  const value = await client.get(ResourceTypes.ConfigMap, new ResourceID(name, 'ns1'));
  got.push(value?.metadata?.name);
}
// a turn for a warning emitted on the next tick to reach stderr
await new Promise((resolve) => setImmediate(resolve));
process.stdout.write(`done ${got.join(' ')}\n`);
// no client.close(): the process must end by itself
