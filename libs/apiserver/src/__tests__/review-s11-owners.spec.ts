// Review S11 (owner references): what kube-apiserver 1.32 answers when an operator writes a wrong
// ownerReference. The release read is 1.32 (apimachinery v0.32.1), the version discovery reports;
// sources are named per test.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

const CM = '/api/v1/namespaces/default/configmaps';

interface Cause {
  reason: string;
  field: string;
  message: string;
}
interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: Cause[] };
}

function ref(extra: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1', ...extra };
}

describe('review S11: owner references, namespace spec.finalizers, terminating CRDs', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  // apimachinery v0.32.1 pkg/api/validation/objectmeta.go validateOwnerReference: every error is a
  // field.Invalid on metadata.ownerReferences.<field> (ValidateOwnerReferences passes the list's path,
  // not an indexed one), worded '<field> must not be empty' for kind, name and uid and 'version must not
  // be empty' for apiVersion; the version comes from schema.FromAPIVersionAndKind, so an apiVersion
  // ParseGroupVersion refuses ('a/b/c') or one without a version ('apps/') is refused the same way.
  it('[FINDING S11-OR1] an ownerReference without apiVersion, kind, name or uid, or with an apiVersion that is no group/version, is refused with indexed fields and an "apiVersion must not be empty" kube never words (and apps/v1/extra is accepted)', async () => {
    const empty = await call(server, 'POST', CM, {
      metadata: { name: 'or1-empty', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] },
    });
    expect(empty.status).toBe(422);
    const body = empty.json<StatusBody>();
    expect(body.details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.ownerReferences.apiVersion',
        message: 'Invalid value: "": version must not be empty',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.ownerReferences.kind',
        message: 'Invalid value: "": kind must not be empty',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.ownerReferences.name',
        message: 'Invalid value: "": name must not be empty',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.ownerReferences.uid',
        message: 'Invalid value: "": uid must not be empty',
      },
    ]);
    expect(body.message).toBe(
      'ConfigMap "or1-empty" is invalid: [metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty, metadata.ownerReferences.kind: Invalid value: "": kind must not be empty, metadata.ownerReferences.name: Invalid value: "": name must not be empty, metadata.ownerReferences.uid: Invalid value: "": uid must not be empty]',
    );
    // fields left out are refused the same way (a missing uid is the common mistake)
    const noUid = await call(server, 'POST', CM, {
      metadata: { name: 'or1-nouid', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o' }] },
    });
    expect(noUid.status).toBe(422);
    expect(noUid.json<StatusBody>().message).toBe(
      'ConfigMap "or1-nouid" is invalid: metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    );
    for (const apiVersion of ['apps/v1/extra', 'apps/']) {
      const bad = await call(server, 'POST', CM, {
        metadata: { name: 'or1-bad-version', ownerReferences: [ref({ apiVersion })] },
      });
      expect([apiVersion, bad.status]).toEqual([apiVersion, 422]);
      expect(bad.json<StatusBody>().details?.causes).toEqual([
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.ownerReferences.apiVersion',
          message: `Invalid value: ${JSON.stringify(apiVersion)}: version must not be empty`,
        },
      ]);
    }
    // what kube takes: a core version, a group/version, and '/v1' (ParseGroupVersion reads group "")
    for (const apiVersion of ['v1', 'apps/v1', 'example.com/v1alpha1', '/v1']) {
      const ok = await call(server, 'POST', CM, {
        metadata: {
          name: `or1-ok-${apiVersion.replace(/[^a-z0-9]/g, '')}`,
          ownerReferences: [ref({ apiVersion })],
        },
      });
      expect([apiVersion, ok.status]).toEqual([apiVersion, 201]);
    }
  });

  // apimachinery v0.32.1 objectmeta.go BannedOwners ({Group: "", Version: "v1", Kind: "Event"}):
  // validateOwnerReference adds field.Invalid(fldPath, ownerReference, "<gvk> is disallowed from being an
  // owner"), the value printed with %#v (field.Error.ErrorBody) and the GroupVersionKind by its String().
  it('[FINDING S11-OR2] an ownerReference naming a v1 Event is accepted, where kube refuses an Event as an owner', async () => {
    const res = await call(server, 'POST', CM, {
      metadata: {
        name: 'or2-event-owned',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'ev', uid: 'u-ev' }],
      },
    });
    expect(res.status).toBe(422);
    const body = res.json<StatusBody>();
    const cause =
      'Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"ev", UID:"u-ev", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner';
    expect(body.details?.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.ownerReferences', message: cause },
    ]);
    expect(body.message).toBe(`ConfigMap "or2-event-owned" is invalid: metadata.ownerReferences: ${cause}`);
    // events.k8s.io Events are not banned (the group differs), as in kube
    const other = await call(server, 'POST', CM, {
      metadata: {
        name: 'or2-events-group',
        ownerReferences: [{ apiVersion: 'events.k8s.io/v1', kind: 'Event', name: 'ev', uid: 'u-ev' }],
      },
    });
    expect(other.status).toBe(201);
  });

  // apimachinery v0.32.1 objectmeta.go ValidateOwnerReferences: each reference after the first with
  // controller true adds field.Invalid(fldPath, ownerReferences, `Only one reference can have Controller set
  // to true. Found "true" in references for <Kind>/<name> and <Kind>/<name>`), naming the first controller and
  // this one; the list is printed with %#v ([]v1.OwnerReference{...}, the pointers as addresses).
  it('[FINDING S11-OR3] two controller ownerReferences are refused without naming them ("Only one reference can have Controller set to true" alone), where kube names both Kind/name', async () => {
    const res = await call(server, 'POST', CM, {
      metadata: {
        name: 'or3-two-controllers',
        ownerReferences: [
          ref({ kind: 'Widget', apiVersion: 'example.com/v1', name: 'a', uid: 'u-a', controller: true }),
          ref({ kind: 'ConfigMap', name: 'm', uid: 'u-m' }),
          ref({ kind: 'Gadget', apiVersion: 'example.com/v1', name: 'b', uid: 'u-b', controller: true }),
          ref({ kind: 'Gizmo', apiVersion: 'example.com/v1', name: 'c', uid: 'u-c', controller: true }),
        ],
      },
    });
    expect(res.status).toBe(422);
    const causes = res.json<StatusBody>().details?.causes ?? [];
    expect(causes.map((c) => [c.reason, c.field])).toEqual([
      ['FieldValueInvalid', 'metadata.ownerReferences'],
      ['FieldValueInvalid', 'metadata.ownerReferences'],
    ]);
    const list =
      /^Invalid value: \[\]v1\.OwnerReference\{v1\.OwnerReference\{APIVersion:"example\.com\/v1", Kind:"Widget", Name:"a", UID:"u-a", Controller:\(\*bool\)\(0x[0-9a-f]+\), BlockOwnerDeletion:\(\*bool\)\(nil\)\}, v1\.OwnerReference\{APIVersion:"v1", Kind:"ConfigMap", Name:"m", UID:"u-m", Controller:\(\*bool\)\(nil\), BlockOwnerDeletion:\(\*bool\)\(nil\)\}, v1\.OwnerReference\{[^}]*Kind:"Gadget"[^}]*\}, v1\.OwnerReference\{[^}]*Kind:"Gizmo"[^}]*\}\}: /;
    expect(causes[0].message).toMatch(list);
    expect(causes[0].message).toMatch(
      /: Only one reference can have Controller set to true\. Found "true" in references for Widget\/a and Gadget\/b$/,
    );
    expect(causes[1].message).toMatch(
      /: Only one reference can have Controller set to true\. Found "true" in references for Widget\/a and Gizmo\/c$/,
    );
    // controller false and blockOwnerDeletion are printed as pointers too
    const one = await call(server, 'POST', CM, {
      metadata: {
        name: 'or3-one-controller',
        ownerReferences: [
          ref({ controller: true, blockOwnerDeletion: true }),
          ref({ uid: 'u-2', controller: false }),
        ],
      },
    });
    expect(one.status).toBe(201);
  });
});

describe('review S11: duplicate owner references', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  function warningsOf(headers: Record<string, string | string[] | undefined>): string[] {
    const w = headers.warning;
    if (w === undefined) return [];
    return (Array.isArray(w) ? w : [w]).flatMap((v) => v.split(/,(?=\s*299 )/)).map((v) => v.trim());
  }
  const dup = (uids: string) =>
    `299 - ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${uids}"`;
  const dupAfter = (uids: string) =>
    `299 - ".metadata.ownerReferences contains duplicate entries after mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${uids}"`;

  // k8s.io/apiserver v0.32.1 pkg/endpoints/handlers/rest.go dedupOwnerReferencesAndAddWarning, called by the
  // create and update handlers before the object is validated (DuplicateOwnerReferencesWarningFormat) and by
  // the patch handler after the patch (DuplicateOwnerReferencesAfterMutatingAdmissionWarningFormat): a
  // reference equal in every field to an earlier one with its uid is dropped, and a warning lists the uids.
  it('[FINDING S11-OR10] an ownerReference written twice (an operator appending its controller reference again) is stored twice, or refused as a second controller, where kube drops the copy with a warning', async () => {
    const a = ref({ kind: 'Widget', apiVersion: 'example.com/v1', name: 'a', uid: 'u-a', controller: true });
    const sameUidOtherName = ref({ kind: 'Widget', apiVersion: 'example.com/v1', name: 'a2', uid: 'u-a' });
    const res = await call(server, 'POST', CM, {
      metadata: { name: 'or10-cm', ownerReferences: [a, a, sameUidOtherName, a] },
    });
    expect(res.status).toBe(201);
    expect(warningsOf(res.headers)).toEqual([dup('u-a, u-a')]);
    type Refs = { metadata: { ownerReferences: Record<string, unknown>[]; resourceVersion: string } };
    expect(res.json<Refs>().metadata.ownerReferences).toEqual([a, sameUidOtherName]);
    const live = (await call(server, 'GET', `${CM}/or10-cm`)).json<Refs>();
    expect(live.metadata.ownerReferences).toEqual([a, sameUidOtherName]);
    // a PUT is deduplicated the same way
    const put = await call(server, 'PUT', `${CM}/or10-cm`, {
      ...live,
      metadata: { ...live.metadata, ownerReferences: [a, sameUidOtherName, sameUidOtherName] },
    });
    expect(put.status).toBe(200);
    expect(warningsOf(put.headers)).toEqual([dup('u-a')]);
    expect(put.json<Refs>().metadata.ownerReferences).toEqual([a, sameUidOtherName]);
    // a patch after it is applied, with the wording of the check after mutating admission
    const patched = await call(
      server,
      'PATCH',
      `${CM}/or10-cm`,
      { metadata: { ownerReferences: [a, a] } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(patched.status).toBe(200);
    expect(warningsOf(patched.headers)).toEqual([dupAfter('u-a')]);
    expect(patched.json<Refs>().metadata.ownerReferences).toEqual([a]);
    // references that differ in a field are both kept (and two controllers are still refused)
    const differ = await call(server, 'POST', CM, {
      metadata: { name: 'or10-differ', ownerReferences: [a, { ...a, blockOwnerDeletion: true }] },
    });
    expect(differ.status).toBe(422);
  });
});
