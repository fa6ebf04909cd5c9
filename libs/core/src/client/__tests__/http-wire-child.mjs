// Child process of http-wire-sockets.spec.ts (case 16): a client that made requests and was never
// closed must not keep the process alive. Runs the TypeScript sources of @tosdk/core as they are in
// the tree (node --experimental-transform-types; this hook maps the sources' `.js` imports to their
// `.ts` files), so the transport under test is the current one, not the last build.
// argv: kubeconfig path. Prints "done" and the names it got on one line, then returns.
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

const [kubeconfig] = process.argv.slice(2);
const client = KubernetesClient.fromKubeConfig(
  loadKubeConfig({ env: { KUBECONFIG: kubeconfig, HOME: '/nonexistent' } }),
  { retry: false },
);
const CM = ResourceTypes.ConfigMap;
// concurrent requests: several kept-alive sockets left idle in the pool
const got = await Promise.all(['a', 'b', 'c'].map((name) => client.get(CM, new ResourceID(name, 'ns1'))));
const names = got.map((g) => g?.metadata?.name);
// a watch the server ends
for await (const event of client.watch(CM, { namespace: 'ns1' })) names.push(event.object.metadata.name);
// a failure answer (404: undefined)
const missing = await client.get(CM, new ResourceID('missing', 'ns1'));
names.push(missing === undefined ? 'missing' : 'found?');
process.stdout.write(`done ${names.join(' ')}\n`);
// no client.close(): the process must end by itself
