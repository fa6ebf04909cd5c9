// `tosdk generate` for the WebPage sample: the CRD, RBAC and deploy files in ../deploy and the Helm
// chart in ../chart are generated from the code, checked in CI by test/generate-webpage.e2e-spec.ts,
// which writes them with `TOSDK_REGENERATE=1 npm test -- test/generate-webpage.e2e-spec.ts -t 'up to date'`.
import { defineConfig, offlineKubeConfig } from '@tosdk/cli';
import type { TosdkConfig } from '@tosdk/cli';
import type { WebPageFlavour } from './webpage-flavour.js';

/** The configuration of one flavour (the deploy files use `managed`; the RBAC proof test checks all three). */
export function webPageToolConfig(flavour: WebPageFlavour = 'managed'): TosdkConfig {
  return defineConfig({
    name: 'webpage-operator',
    namespace: 'webpage-system',
    app: {
      nestModule: async () => {
        await import('reflect-metadata');
        const { WebPageAppModule } = await import('./app.module.js');
        return WebPageAppModule.forRoot({
          flavour,
          defaultMetrics: false,
          logLevel: 'silent',
          operator: { kubeConfig: offlineKubeConfig(), readEnvironment: false },
        });
      },
    },
    // v2 stays out of the deployed CRD until the deployed app serves its webhooks: kubectl prefers v2,
    // which needs the conversion webhook, so `kubectl get webpages` would fail. Adding
    // `resources: [WebPageV2]` here then gives the CRD both versions and the conversion stanza.
    // The webhooks of src/webhooks: deploy/webhooks/webhooks.yaml holds their Service and the
    // ValidatingWebhookConfiguration; cert-manager injects the CA of the Certificate
    // webpage-system/webpage-operator-webhooks
    webhooks: {
      classes: async () => {
        await import('reflect-metadata');
        const [{ WebPageValidator }, { WebPageConversion }] = await Promise.all([
          import('./webhooks/webpage.validator.js'),
          import('./webhooks/webpage.conversion.js'),
        ]);
        return [WebPageValidator, WebPageConversion];
      },
      caBundle: { certManager: 'webpage-system/webpage-operator-webhooks' },
    },
    // the lease name is a setting (WEBPAGE_LEASE_NAME), so the Role is not restricted to one name
    leaderElection: {},
    deployment: {
      image: 'ghcr.io/tosdk/webpage-operator:0.1.0',
      replicas: 2,
      port: 8080,
      env: {
        WEBPAGE_FLAVOUR: flavour,
        WEBPAGE_HTTP_HOST: '0.0.0.0',
        WEBPAGE_HTTP_PORT: '8080',
        LOG_LEVEL: 'info',
      },
      leaderElectionEnv: { WEBPAGE_LEADER_ELECTION: 'true' },
      runAsUser: 1000,
    },
    output: {
      crds: '../deploy/webpage-crd.yaml',
      rbac: '../deploy/rbac.yaml',
      manifests: '../deploy',
      helm: '../chart',
      // a directory of its own: `kubectl apply -f deploy/` leaves the webhooks out until the app serves them
      webhooks: '../deploy/webhooks/webhooks.yaml',
    },
  });
}

export default webPageToolConfig();
