import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  sign,
  verify,
} from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { JsonObject } from '../../types.js';
import { errors } from '../common/errors.js';
import { isObject, metaOf, rfc3339, str } from '../common/json.js';
import type { Store } from '../storage/store.js';
import type { AuthUser } from './access-review.js';
import { boundObjectAlive, resolveBoundObject } from './bound-object.js';

/** The issuer and default audience of the server's tokens, as a kubeadm cluster's kube-apiserver. */
export const TOKEN_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** TokenRequest's `expirationSeconds` when the request names none (kube's default, one hour). */
const DEFAULT_EXPIRATION_SECONDS = 3600;
/** The shortest and the longest lifetime TokenRequest validation accepts (10 minutes, 2^32 s). */
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

interface Claims {
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  iss: string;
  jti: string;
  sub: string;
  'kubernetes.io': {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod?: { name: string; uid: string };
    secret?: { name: string; uid: string };
  };
}

function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/**
 * Service account tokens: `TokenRequest` (`POST .../serviceaccounts/<name>/token`, `kubectl create
 * token`) issues an RS256 JWT with kube-apiserver's claims (`iss`, `sub`
 * `system:serviceaccount:<ns>:<name>`, `aud`, `exp`, `iat`, `nbf`, `jti`, `kubernetes.io`), and a
 * bearer token of that form authenticates as the service account while the account exists with the
 * same uid and the token has not expired (kube's bound token validation). The signing key is made
 * on the first request and lives as long as the server object: tokens do not survive a new server.
 */
export class ServiceAccountTokens {
  private key: { privateKey: KeyObject; publicKey: KeyObject; kid: string } | undefined;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  private signingKey(): { privateKey: KeyObject; publicKey: KeyObject; kid: string } {
    if (this.key === undefined) {
      const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const der = pair.publicKey.export({ type: 'spki', format: 'der' });
      this.key = {
        privateKey: createPrivateKey(pair.privateKey.export({ type: 'pkcs8', format: 'pem' })),
        publicKey: createPublicKey(pair.publicKey.export({ type: 'spki', format: 'pem' })),
        // kube's keyIDFromPublicKey: the unpadded base64url SHA-256 of the DER public key
        kid: base64url(createHash('sha256').update(der).digest()),
      };
    }
    return this.key;
  }

  /**
   * Answers a TokenRequest for the service account `namespace/name`: the request with its spec
   * defaulted (audiences, expirationSeconds) and `status.token`, `status.expirationTimestamp`.
   * 404 when the account does not exist, 422 for a lifetime under 10 minutes or over 2^32 seconds.
   */
  issue(namespace: string, name: string, body: JsonObject): JsonObject {
    const sa = this.store.get('/serviceaccounts', namespace, name);
    if (sa === undefined) throw errors.notFound({ group: '', resource: 'serviceaccounts', name });
    const spec = isObject(body.spec) ? body.spec : {};
    const requested = spec.expirationSeconds;
    const seconds =
      requested === undefined || requested === null ? DEFAULT_EXPIRATION_SECONDS : Number(requested);
    const causes: { field: string; message: string }[] = [];
    if (!Number.isInteger(seconds) || seconds < MIN_EXPIRATION_SECONDS)
      causes.push({
        field: 'spec.expirationSeconds',
        message: `Invalid value: ${String(requested)}: may not specify a duration less than 10 minutes`,
      });
    else if (seconds > MAX_EXPIRATION_SECONDS)
      causes.push({
        field: 'spec.expirationSeconds',
        message: `Invalid value: ${String(requested)}: may not specify a duration larger than 2^32 seconds`,
      });
    if (causes.length > 0)
      throw errors.invalid(
        // kube names no object in this error (token.go passes an empty name)
        { group: 'authentication.k8s.io', resource: 'tokenrequests', kind: 'TokenRequest', name: '' },
        causes.map((c) => ({ reason: 'FieldValueInvalid', field: c.field, message: c.message })),
      );
    const bound = resolveBoundObject(this.store, namespace, name, spec.boundObjectRef);
    const audiences =
      Array.isArray(spec.audiences) && spec.audiences.length > 0
        ? spec.audiences.map((a) => String(a))
        : [TOKEN_ISSUER];
    const iat = Math.floor(this.now() / 1000);
    const claims: Claims = {
      aud: audiences,
      exp: iat + seconds,
      iat,
      nbf: iat,
      iss: TOKEN_ISSUER,
      jti: randomUUID(),
      sub: `system:serviceaccount:${namespace}:${name}`,
      'kubernetes.io': {
        namespace,
        serviceaccount: { name, uid: str(metaOf(sa).uid) },
        ...(bound ? { [bound.kind === 'Pod' ? 'pod' : 'secret']: { name: bound.name, uid: bound.uid } } : {}),
      },
    };
    const key = this.signingKey();
    const head = base64url(JSON.stringify({ alg: 'RS256', kid: key.kid }));
    const payload = base64url(JSON.stringify(claims));
    const signature = sign('sha256', Buffer.from(`${head}.${payload}`), key.privateKey);
    const token = `${head}.${payload}.${base64url(signature)}`;
    return {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name, namespace, creationTimestamp: rfc3339(new Date(iat * 1000)) },
      spec: {
        audiences,
        expirationSeconds: seconds,
        boundObjectRef:
          bound && isObject(spec.boundObjectRef) ? { ...spec.boundObjectRef, uid: bound.uid } : null,
      },
      status: { token, expirationTimestamp: rfc3339(new Date(claims.exp * 1000)) },
    };
  }

  /**
   * `/.well-known/openid-configuration` (service account issuer discovery), as kube-apiserver
   * answers it: the issuer, the JWKS URL under `baseUrl`, RS256 ID tokens with public subjects.
   */
  openIdConfiguration(baseUrl: string): JsonObject {
    return {
      issuer: TOKEN_ISSUER,
      jwks_uri: `${baseUrl}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    };
  }

  /** `/openid/v1/jwks`: the public key that verifies the tokens, as a JSON Web Key Set. */
  jwks(): JsonObject {
    const key = this.signingKey();
    const jwk = key.publicKey.export({ format: 'jwk' });
    return { keys: [{ use: 'sig', kty: 'RSA', kid: key.kid, alg: 'RS256', n: jwk.n, e: jwk.e }] };
  }

  /**
   * The service account a bearer token issued here stands for, with the audiences it was accepted
   * for, or undefined when the token is not one of them, names none of `audiences` (by default the
   * API server's own, so a token made for another audience does not work against the API), is
   * expired, or its account is gone or was re-created (another uid).
   */
  authenticate(
    token: string,
    audiences: readonly string[] = [TOKEN_ISSUER],
  ): { user: AuthUser; audiences: string[] } | undefined {
    const key = this.key;
    if (key === undefined) return undefined;
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const ok = verify(
      'sha256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      key.publicKey,
      Buffer.from(parts[2], 'base64url'),
    );
    if (!ok) return undefined;
    let claims: Claims;
    try {
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Claims;
    } catch {
      return undefined;
    }
    const nowSeconds = Math.floor(this.now() / 1000);
    if (claims.exp <= nowSeconds || claims.nbf > nowSeconds) return undefined;
    const accepted = audiences.filter((a) => claims.aud.includes(a));
    if (accepted.length === 0) return undefined;
    const { namespace, serviceaccount } = claims['kubernetes.io'];
    const sa = this.store.get('/serviceaccounts', namespace, serviceaccount.name);
    if (sa === undefined || str(metaOf(sa).uid) !== serviceaccount.uid) return undefined;
    // a token bound to a pod or a secret ends with it (kube's bound token validation)
    const boundTo = claims['kubernetes.io'].pod ?? claims['kubernetes.io'].secret;
    const boundKind = claims['kubernetes.io'].pod ? 'Pod' : 'Secret';
    if (boundTo && !boundObjectAlive(this.store, namespace, { kind: boundKind, ...boundTo }))
      return undefined;
    const user: AuthUser = {
      name: claims.sub,
      uid: serviceaccount.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
      extra: {
        'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`],
        ...(claims['kubernetes.io'].pod
          ? {
              'authentication.kubernetes.io/pod-name': [claims['kubernetes.io'].pod.name],
              'authentication.kubernetes.io/pod-uid': [claims['kubernetes.io'].pod.uid],
            }
          : {}),
      },
    };
    return { user, audiences: accepted };
  }
}
