import { describe, expect, it } from '@jest/globals';
import { InvalidOperatorConfigurationError } from '../errors.js';
import { Operator } from '../operator.js';
import type { OperatorLeaderElectionConfiguration } from '../operator-leader-election.js';
import { apiServerSuite, newNamespace, RecordingReconciler, waitFor, Widget, widget } from './support.js';

const bed = apiServerSuite();

function leaderOf(namespace: string, exit: (code: number) => void, reconciler = new RecordingReconciler()) {
  const leaderElection: OperatorLeaderElectionConfiguration = {
    leaseName: 'widgets-exit',
    leaseNamespace: namespace,
    identity: 'operator-a',
    leaseDurationMs: 2_000,
    renewDeadlineMs: 1_500,
    retryPeriodMs: 250,
    exit,
  };
  const op = bed.operator({ leaderElection });
  op.register(reconciler, { resourceType: Widget, name: 'widgets', namespaces: [namespace] });
  return op;
}

describe('Operator leader election exit', () => {
  it('[OP-01] losing the lease calls the configured exit with a non-zero code after processing stopped', async () => {
    const ns = await newNamespace(bed.admin);
    const codes: Array<{ code: number; leading: boolean }> = [];
    const reconciler = new RecordingReconciler();
    const op = leaderOf(ns, (code) => codes.push({ code, leading: op.runtimeInfo.isLeader() }), reconciler);
    await op.start();
    await waitFor(() => op.runtimeInfo.isLeader(), 'the operator leads');
    await bed.admin.create(Widget, widget('w1', ns));
    await waitFor(() => reconciler.of('w1').length > 0, 'w1 reconciled');
    // every renewal fails from now on: the renew deadline passes
    bed.server.faults.failNext({
      verb: 'update',
      resource: 'leases',
      namespace: ns,
      code: 503,
      times: 1_000_000,
    });
    await waitFor(() => codes.length > 0, 'the exit function to be called');
    expect(codes).toHaveLength(1);
    expect(codes[0].code).not.toBe(0);
    expect(codes[0].code).toBe(1);
    expect(codes[0].leading).toBe(false);
    expect(op.runtimeInfo.isLeader()).toBe(false);
  });

  it('[OP-01] a graceful stop never calls exit', async () => {
    const ns = await newNamespace(bed.admin);
    const codes: number[] = [];
    const op = leaderOf(ns, (code) => codes.push(code));
    await op.start();
    await waitFor(() => op.runtimeInfo.isLeader(), 'the operator leads');
    await op.stop();
    expect(codes).toEqual([]);
  });

  it('rejects an exit that is not a function with InvalidOperatorConfigurationError', () => {
    const leaderElection = {
      leaseName: 'x',
      leaseNamespace: 'default',
      exit: 1,
    } as unknown as OperatorLeaderElectionConfiguration;
    expect(() => new Operator({ kubeConfig: bed.server.kubeConfig(), leaderElection })).toThrow(
      InvalidOperatorConfigurationError,
    );
  });
});
