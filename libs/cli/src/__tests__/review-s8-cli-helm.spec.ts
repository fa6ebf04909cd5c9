// Review S8 (generators): the Helm chart of `tosdk generate helm`, rendered the way Helm would for the
// default values (no helm binary here: the few template constructs the generator emits are resolved
// by hand, and the result is parsed as YAML with the same library the generator writes it with).
import { describe, expect, it } from '@jest/globals';
import { KubernetesClient, Operator, ResourceTypes, UpdateControl } from '@tosdk/core';
import { parseAllDocuments } from 'yaml';
import { offlineKubeConfig } from '../config.js';
import type { DeploymentConfig, TosdkConfig } from '../config.js';
import { helmChart } from '../helm.js';
import { loadApp } from '../introspect.js';
import type { AppModel } from '../introspect.js';
import { rbacManifests } from '../rbac.js';

/** A ConfigMap controller watching one namespace, `team-a`, as configured in its code. */
const teamAApp = (): Promise<AppModel> =>
  loadApp({
    operator: () => {
      const operator = new Operator({ client: KubernetesClient.fromKubeConfig(offlineKubeConfig()) });
      operator.register(
        { reconcile: () => UpdateControl.noUpdate() },
        { resourceType: ResourceTypes.ConfigMap, name: 'labeller', namespaces: ['team-a'] },
      );
      return operator;
    },
  });

const config = (deployment: Partial<DeploymentConfig> = {}): TosdkConfig => ({
  name: 'op',
  namespace: 'op-system',
  app: { operator: () => undefined },
  output: {},
  deployment: { image: 'example.com/op:1.0.0', ...deployment },
});

/**
 * Helm's rendering with `watchNamespaces: []` and the given `replicas`: the `if`/`range`/`else`/`end`
 * lines the generator writes are evaluated (an empty list is false and ranges zero times;
 * `gt (int .Values.replicas) 1` compares the value), then the value references are filled in.
 */
function renderDefault(template: string, values: { replicas: number }): string {
  const stack: Array<{ kind: 'if' | 'range'; active: boolean; parent: boolean }> = [];
  const active = () => stack.every((f) => f.active);
  const out: string[] = [];
  for (const line of template.split('\n')) {
    const directive = /^\{\{- (if|range|else|end)\b.*\}\}$/.exec(line.trim());
    if (!directive) {
      if (active()) out.push(line);
      continue;
    }
    if (directive[1] === 'if' || directive[1] === 'range') {
      const aboveOne = line.trim() === '{{- if gt (int .Values.replicas) 1 }}';
      if (!aboveOne && !line.includes('.Values.watchNamespaces'))
        throw new Error(`unexpected directive ${line}`);
      stack.push({ kind: directive[1], active: aboveOne && values.replicas > 1, parent: active() });
    } else if (directive[1] === 'else') {
      const top = stack[stack.length - 1];
      top.active = !top.active;
    } else {
      stack.pop();
    }
  }
  expect(stack).toEqual([]);
  return out
    .join('\n')
    .replace(/\{\{ \$?\.Release\.Namespace \}\}/g, 'op-system')
    .replace('{{ .Values.replicas }}', String(values.replicas))
    .replace('"{{ .Values.image.repository }}:{{ .Values.image.tag }}"', 'example.com/op:1.0.0')
    .replace('{{ .Values.image.pullPolicy }}', 'IfNotPresent')
    .replace(/\n\s*\{\{- toYaml \.Values\.resources \| nindent \d+ \}\}/, ' {}');
}

const objects = (yamlText: string) => {
  const docs = parseAllDocuments(yamlText);
  const errors = docs.flatMap((d) => d.errors.map((e) => e.message));
  return {
    errors,
    list: docs.map((d) => d.toJS() as Record<string, unknown> | null).filter((o) => o !== null),
  };
};

describe('review S8: tosdk generate helm', () => {
  it('[FINDING S8-CL4] with the default values (watchNamespaces: []) the chart grants a controller configured for one namespace what `rbac` grants it there (it granted nothing)', async () => {
    const app = await teamAApp();
    // what `tosdk generate rbac` gives the same app: a Role in team-a with list/watch on configmaps
    const plain = rbacManifests(app, config()).find((m) => m.kind === 'Role');
    expect(plain?.metadata.namespace).toBe('team-a');
    const chart = helmChart(app, config(), '');
    const rendered = objects(renderDefault(chart['templates/rbac.yaml'], { replicas: 1 }));
    expect(rendered.errors).toEqual([]);
    // with no TOSDK_CONTROLLER_LABELLER_NAMESPACES set (the env is only added for watchNamespaces)
    // the operator watches team-a as its code says, so it needs configmaps list/watch there
    const deployment = renderDefault(chart['templates/deployment.yaml'], { replicas: 1 });
    expect(deployment).not.toContain('TOSDK_CONTROLLER_LABELLER_NAMESPACES');
    const roles = rendered.list.filter((o) => o['kind'] === 'Role' || o['kind'] === 'ClusterRole');
    const grantsConfigMaps = roles.some((r) =>
      (r['rules'] as Array<{ resources: string[] }>).some((rule) => rule.resources.includes('configmaps')),
    );
    expect(grantsConfigMaps).toBe(true);
  });

  it('[FINDING S8-CL5] without deployment.env the Deployment template has the key env once (it had env: [] and env:, which YAML forbids)', async () => {
    const chart = helmChart(await teamAApp(), config(), '');
    const rendered = objects(renderDefault(chart['templates/deployment.yaml'], { replicas: 1 }));
    expect(rendered.errors).toEqual([]);
    expect(chart['templates/deployment.yaml'].match(/^\s+env:/gm)).toHaveLength(1);
  });

  it('[FINDING S8-CL6] the chart lets users raise replicas and leader election (env and lease Role) follows the value (it was fixed at generation: replicas: 2 ran two active operators)', async () => {
    const chart = helmChart(
      await teamAApp(),
      config({ replicas: 1, leaderElectionEnv: { OP_LEADER_ELECTION: 'true' } }),
      '',
    );
    // the chart's replicas value is a free number...
    expect(chart['templates/deployment.yaml']).toContain('replicas: {{ .Values.replicas }}');
    // ...yet nothing in the chart turns leader election on when it is above 1
    const text = chart['templates/deployment.yaml'] + chart['templates/rbac.yaml'];
    expect(text).toContain('OP_LEADER_ELECTION');
    expect(text).toContain('leases');
    // rendered with replicas: 2 the lease Role and the env are there; with 1 neither
    const at = (replicas: number) => {
      const rbac = objects(renderDefault(chart['templates/rbac.yaml'], { replicas }));
      const deployment = objects(renderDefault(chart['templates/deployment.yaml'], { replicas }));
      expect([...rbac.errors, ...deployment.errors]).toEqual([]);
      return {
        lease: rbac.list.some((o) => (o['metadata'] as { name: string }).name === 'op-leader-election'),
        env: JSON.stringify(deployment.list).includes('OP_LEADER_ELECTION'),
      };
    };
    expect(at(2)).toEqual({ lease: true, env: true });
    expect(at(1)).toEqual({ lease: false, env: false });
  });

  it('guard: with deployment.env the rendered Deployment parses as one Deployment with the env and no watched-namespaces variable', async () => {
    const chart = helmChart(await teamAApp(), config({ env: { LOG_LEVEL: 'info' } }), '');
    const rendered = objects(renderDefault(chart['templates/deployment.yaml'], { replicas: 1 }));
    expect(rendered.errors).toEqual([]);
    expect(rendered.list).toHaveLength(1);
    const d = rendered.list[0] as {
      kind: string;
      spec: { template: { spec: { containers: Array<{ env: Array<{ name: string }> }> } } };
    };
    expect(d.kind).toBe('Deployment');
    expect(d.spec.template.spec.containers[0].env.map((e) => e.name)).toEqual(['LOG_LEVEL']);
  });

  it('guard: with the default values a controller of every namespace gets one ClusterRole with its kinds', async () => {
    const app = await loadApp({
      operator: () => {
        const operator = new Operator({ client: KubernetesClient.fromKubeConfig(offlineKubeConfig()) });
        operator.register(
          { reconcile: () => UpdateControl.noUpdate() },
          { resourceType: ResourceTypes.ConfigMap, name: 'labeller' },
        );
        return operator;
      },
    });
    const rendered = objects(
      renderDefault(helmChart(app, config(), '')['templates/rbac.yaml'], { replicas: 1 }),
    );
    expect(rendered.errors).toEqual([]);
    const role = rendered.list.find((o) => o['kind'] === 'ClusterRole') as
      { rules: Array<{ resources: string[]; verbs: string[] }> } | undefined;
    expect(role?.rules).toEqual(
      expect.arrayContaining([
        // patch: UpdateControl.patchResource (S8-CL12)
        expect.objectContaining({ resources: ['configmaps'], verbs: ['list', 'watch', 'patch'] }),
      ]),
    );
    expect(rendered.list.map((o) => o['kind'])).toEqual(['ClusterRole', 'ClusterRoleBinding']);
  });

  it('guard: with replicas > 1 at generation the chart has the leader election Role and the env', async () => {
    const chart = helmChart(
      await teamAApp(),
      config({ replicas: 2, leaderElectionEnv: { OP_LEADER_ELECTION: 'true' } }),
      '',
    );
    expect(chart['templates/deployment.yaml']).toContain('OP_LEADER_ELECTION');
    const rendered = objects(renderDefault(chart['templates/rbac.yaml'], { replicas: 2 }));
    expect(rendered.errors).toEqual([]);
    expect(
      rendered.list.map((o) => `${o['kind'] as string}/${(o['metadata'] as { name: string }).name}`),
    ).toEqual(expect.arrayContaining(['Role/op-leader-election', 'RoleBinding/op-leader-election']));
  });
});
