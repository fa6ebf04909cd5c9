/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

/**
 * Review (session 10) of how a write's options are validated. kube-apiserver decodes the options
 * (a decoding failure is a 400), then validates them (apimachinery's ValidateCreateOptions,
 * ValidateUpdateOptions, ValidatePatchOptions, ValidateDeleteOptions) and answers every problem
 * at once as a 422 `<Kind>Options.meta.k8s.io "" is invalid` (apiserver's endpoints/handlers
 * create.go, update.go, patch.go, delete.go). A DELETE takes its options from its body when it
 * has one, and from the query only when it has none.
 */
const CM = '/api/v1/namespaces/default/configmaps';
const APPLY = 'application/apply-patch+yaml';

describe('review s10: write options', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

  it('[FINDING S10-OP1] a DELETE with an unsupported propagationPolicy is a 422 DeleteOptions Invalid, and the object stays', async () => {
    expect((await call(server, 'POST', CM, cm('op1'))).status).toBe(201);
    const r = await call(server, 'DELETE', `${CM}/op1`, { propagationPolicy: 'Sideways' });
    expect(r.status).toBe(422);
    const status = r.json<any>();
    expect(status).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      code: 422,
      message:
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
      details: {
        group: 'meta.k8s.io',
        kind: 'DeleteOptions',
        causes: [
          {
            reason: 'FieldValueNotSupported',
            field: 'propagationPolicy',
            message:
              'Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
          },
        ],
      },
    });
    expect((await call(server, 'GET', `${CM}/op1`)).status).toBe(200);
  });

  it('[FINDING S10-OP1] orphanDependents and propagationPolicy together are refused (422), as ValidateDeleteOptions does', async () => {
    expect((await call(server, 'POST', CM, cm('op1b'))).status).toBe(201);
    const r = await call(server, 'DELETE', `${CM}/op1b`, {
      orphanDependents: false,
      propagationPolicy: 'Background',
    });
    expect(r.status).toBe(422);
    expect(r.json<any>().message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
    );
    expect((await call(server, 'GET', `${CM}/op1b`)).status).toBe(200);
  });

  it('[FINDING S10-OP2] a DELETE with a body takes its options from the body only (the query is not read)', async () => {
    expect((await call(server, 'POST', CM, cm('op2'))).status).toBe(201);
    // the query's policy is not a valid one, the body's is: kube reads the body and deletes
    const r = await call(server, 'DELETE', `${CM}/op2?propagationPolicy=Sideways`, {
      propagationPolicy: 'Background',
    });
    expect(r.status).toBe(200);
    expect((await call(server, 'GET', `${CM}/op2`)).status).toBe(404);
    // without a body, the query is read
    expect((await call(server, 'POST', CM, cm('op2b'))).status).toBe(201);
    const q = await call(server, 'DELETE', `${CM}/op2b?propagationPolicy=Sideways`);
    expect(q.status).toBe(422);
    expect(q.json<any>().details.kind).toBe('DeleteOptions');
  });

  it("[FINDING S10-OP3] an unsupported dryRun is a 422 of the verb's options kind, listing the values as kube does", async () => {
    const create = await call(server, 'POST', `${CM}?dryRun=Some`, cm('op3'));
    expect(create.status).toBe(422);
    expect(create.json<any>()).toMatchObject({
      reason: 'Invalid',
      message:
        'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
      details: {
        group: 'meta.k8s.io',
        kind: 'CreateOptions',
        causes: [{ reason: 'FieldValueNotSupported', field: 'dryRun' }],
      },
    });
    expect((await call(server, 'GET', `${CM}/op3`)).status).toBe(404);
    expect((await call(server, 'POST', CM, cm('op3'))).status).toBe(201);
    const update = await call(server, 'PUT', `${CM}/op3?dryRun=All&dryRun=Half`, cm('op3'));
    expect(update.status).toBe(422);
    expect(update.json<any>().message).toBe(
      'UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "Half"}: supported values: "All"',
    );
    const patch = await call(
      server,
      'PATCH',
      `${CM}/op3?dryRun=Some`,
      { data: { a: 'b' } },
      {
        contentType: 'application/merge-patch+json',
      },
    );
    expect(patch.status).toBe(422);
    expect(patch.json<any>().details.kind).toBe('PatchOptions');
    const del = await call(server, 'DELETE', `${CM}/op3?dryRun=Some`);
    expect(del.status).toBe(422);
    expect(del.json<any>().details.kind).toBe('DeleteOptions');
    expect((await call(server, 'GET', `${CM}/op3`)).json<any>().data).toBeUndefined();
  });

  it('[FINDING S10-OP3] an unsupported fieldValidation is a 422 of the options kind; every problem of the options is answered at once', async () => {
    const r = await call(
      server,
      'POST',
      `${CM}?fieldValidation=Loose&dryRun=Some&fieldManager=${'m'.repeat(129)}`,
      cm('op3b'),
    );
    expect(r.status).toBe(422);
    const status = r.json<any>();
    expect(status.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Too long: may not be more than 128 bytes, dryRun: Unsupported value: []string{"Some"}: supported values: "All", fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"]',
    );
    expect(status.details.causes.map((c: any) => c.field)).toEqual([
      'fieldManager',
      'dryRun',
      'fieldValidation',
    ]);
    const apply = await call(
      server,
      'PATCH',
      `${CM}/op3b?fieldManager=m&fieldValidation=Loose`,
      JSON.stringify(cm('op3b')),
      {
        contentType: APPLY,
      },
    );
    expect(apply.status).toBe(422);
    expect(apply.json<any>().details.kind).toBe('PatchOptions');
    // the options are checked before the body: a malformed body with bad options gets the 422
    const malformed = await call(server, 'POST', `${CM}?dryRun=Some`, '{not json');
    expect(malformed.status).toBe(422);
  });

  it('[FINDING S10-OP4] a gracePeriodSeconds that is not an integer is a 400 that names it, and nothing is deleted', async () => {
    expect((await call(server, 'POST', CM, cm('op4'))).status).toBe(201);
    const query = await call(server, 'DELETE', `${CM}/op4?gracePeriodSeconds=soon`);
    expect(query.status).toBe(400);
    expect(query.json<any>().message).toContain('gracePeriodSeconds');
    const body = await call(server, 'DELETE', `${CM}/op4`, { gracePeriodSeconds: 'soon' });
    expect(body.status).toBe(400);
    expect(body.json<any>().message).toContain('gracePeriodSeconds');
    expect((await call(server, 'GET', `${CM}/op4`)).status).toBe(200);
  });

  // kube's registry store.DeleteCollection lists, deletes each listed object, and returns the list
  // object it listed: the objects as they were and the list's resourceVersion from before the deletes
  it('[FINDING S10-OP5] a deletecollection answers the list as it was taken before the deletes', async () => {
    const ns = '/api/v1/namespaces/op5';
    expect((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'op5' } })).status).toBe(
      201,
    );
    const held = {
      ...cm('held'),
      metadata: { name: 'held', labels: { op5: 'y' }, finalizers: ['example.com/hold'] },
    };
    expect((await call(server, 'POST', `${ns}/configmaps`, held)).status).toBe(201);
    const gone = { ...cm('gone'), metadata: { name: 'gone', labels: { op5: 'y' } } };
    expect((await call(server, 'POST', `${ns}/configmaps`, gone)).status).toBe(201);
    const before = (await call(server, 'GET', `${ns}/configmaps?labelSelector=op5%3Dy`)).json<any>();
    const r = await call(server, 'DELETE', `${ns}/configmaps?labelSelector=op5%3Dy`);
    expect(r.status).toBe(200);
    const answer = r.json<any>();
    expect(answer.kind).toBe('ConfigMapList');
    expect(answer.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(answer.items.map((o: any) => o.metadata.name).sort()).toEqual(['gone', 'held']);
    for (const item of answer.items) expect(item.metadata.deletionTimestamp).toBeUndefined();
    // the deletes did happen: one gone, the other terminating behind its finalizer
    expect((await call(server, 'GET', `${ns}/configmaps/gone`)).status).toBe(404);
    expect(
      (await call(server, 'GET', `${ns}/configmaps/held`)).json<any>().metadata.deletionTimestamp,
    ).toBeDefined();
  });
});
