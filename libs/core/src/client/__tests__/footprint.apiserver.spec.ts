import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { KubeApiServer } from '@tosdk/apiserver';

// Memory budget (issue 15 §3), in the spirit of kube-rs' CI check: an operator with one controller,
// idle, as it runs in a pod (in-cluster configuration read by loadKubeConfig, no
// @kubernetes/client-node loaded), must stay well under the same operator configured through
// client-node's KubeConfig, and under a fixed bound above a bare Node process. Each figure is a
// separate process measured in this run, so the bounds are ratios and differences with margin.

const run = promisify(execFile);
const coreDir = fileURLToPath(new URL('../../..', import.meta.url));
const child = fileURLToPath(new URL('./footprint-child.mjs', import.meta.url));

interface Sample {
  mode: string;
  rss: number;
  heapUsed: number;
}

describe('footprint of an idle operator (built package)', () => {
  let server: KubeApiServer;
  const dir = mkdtempSync(join(tmpdir(), 'tosdk-footprint-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const serviceAccount = join(dir, 'sa');

  beforeAll(async () => {
    server = await KubeApiServer.start();
    await server.writeKubeconfig(kubeconfig);
    mkdirSync(serviceAccount);
    writeFileSync(join(serviceAccount, 'token'), server.tokenOf());
    writeFileSync(join(serviceAccount, 'ca.crt'), server.caPem!);
    writeFileSync(join(serviceAccount, 'namespace'), 'default');
  });
  afterAll(async () => {
    await server.stop();
  });

  /** One child process in `mode` (RSS after import varies by well under 1 MB between runs). */
  const measure = async (mode: string): Promise<Sample> => {
    try {
      const { stdout } = await run(
        process.execPath,
        ['--expose-gc', child, mode, kubeconfig, 'default', serviceAccount, String(server.port)],
        { cwd: coreDir, encoding: 'utf8', timeout: 60_000 },
      );
      return JSON.parse(stdout.trim().split('\n').pop()!) as Sample;
    } catch (cause) {
      throw new Error(
        `the footprint child (${mode}) failed; it runs the built package: run \`npm run build\` first`,
        { cause },
      );
    }
  };

  it('in a pod it loads no @kubernetes/client-node: idle RSS well below the client-node setup, and bounded above bare Node', async () => {
    expect(existsSync(join(coreDir, 'dist', 'index.js'))).toBe(true); // npm run build first
    const baseline = await measure('baseline');
    const inCluster = await measure('in-cluster');
    const clientNode = await measure('client-node');
    const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
    console.log(
      `idle operator RSS: in-cluster ${mb(inCluster.rss)}, with client-node's KubeConfig ${mb(clientNode.rss)}, bare node ${mb(baseline.rss)}; heap ${mb(inCluster.heapUsed)} vs ${mb(clientNode.heapUsed)}`,
    );
    // measured on the 2-core CI machine: 83 MB vs 148 MB (0.56), 36 MB above bare Node, heap 11 MB
    expect(inCluster.rss / clientNode.rss).toBeLessThan(0.75);
    expect(inCluster.rss - baseline.rss).toBeLessThan(60e6);
    expect(inCluster.heapUsed).toBeLessThan(20e6);
    expect(inCluster.heapUsed / clientNode.heapUsed).toBeLessThan(0.6);
  }, 120_000);
});
