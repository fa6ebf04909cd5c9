// Child process of the footprint test and benchmark: loads what an operator in a pod loads, starts
// an operator with one controller on ConfigMaps, lets it idle, and prints its memory as JSON.
// argv: mode, kubeconfig path, namespace, service account dir, server port. Modes: baseline (nothing loaded),
// core (the import only), in-cluster (loadKubeConfig from the service account, as in a pod), light
// (loadKubeConfig from a kubeconfig file), client-node (client-node's KubeConfig, as before).
import { setTimeout as sleep } from 'node:timers/promises';

const [mode, kubeconfigPath, namespace, serviceAccountDir, port] = process.argv.slice(2);
let operator;
if (mode !== 'baseline') {
  let kubeConfig;
  if (mode === 'client-node') {
    const { KubeConfig } = await import('@kubernetes/client-node');
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
  }
  const core = await import('@tosdk/core');
  if (mode === 'light') {
    kubeConfig = core.loadKubeConfig({ env: { KUBECONFIG: kubeconfigPath, HOME: '/nonexistent' } });
  }
  if (mode === 'in-cluster') {
    kubeConfig = core.loadKubeConfig({
      env: { HOME: '/nonexistent', KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port },
      serviceAccountDir,
    });
  }
  if (kubeConfig) {
    operator = new core.Operator({ kubeConfig });
    operator.register(
      { reconcile: () => core.UpdateControl.noUpdate() },
      { resourceType: core.ResourceTypes.ConfigMap, name: 'configmaps', namespaces: [namespace] },
    );
    await operator.start();
  }
}
// idle: let start-up garbage go, as a pod does between events
for (let i = 0; i < 5; i++) {
  globalThis.gc?.();
  await sleep(50);
}
const { rss, heapUsed } = process.memoryUsage();
console.log(JSON.stringify({ mode, rss, heapUsed }));
await operator?.stop();
