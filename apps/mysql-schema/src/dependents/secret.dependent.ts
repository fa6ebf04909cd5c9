import { randomBytes } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import { Injectable } from '@nestjs/common';
import { CRUDKubernetesDependentResource, ResourceID, ResourceTypes } from '@tosdk/core';
import { MySQLDatabase } from '../database/mysql-database.js';
import { hostPort } from '../database/mysql-settings.js';
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  schemaName,
  SECONDARY_SELECTOR,
  secretName,
  userName,
} from '../mysql-schema-names.js';
import type { MySQLSchema } from '../mysql-schema.resource.js';
import type { Context } from '@tosdk/core';

/** Name of the Secret dependent in the workflow. */
export const SECRET_DEPENDENT = 'secret';

/** Keys of the credentials Secret. */
export const PASSWORD_KEY = 'password';
/** The user name's key in the credentials Secret. */
export const USERNAME_KEY = 'username';
/** The schema name's key in the credentials Secret. */
export const DATABASE_KEY = 'database';
/** `host:port` of the server, for the application that uses the schema. */
export const ADDRESS_KEY = 'address';

/**
 * A Secret of the credentials' name exists that the operator did not make for this resource (no
 * owner reference to it): it is left as it is, and the user is not created until it is renamed or
 * deleted. Retried (that Secret is not watched).
 */
export class CredentialsSecretNameTakenError extends Error {
  /** Stable error code. */
  readonly code = 'CredentialsSecretNameTaken';
  constructor(
    /** `<namespace>/<name>` of the Secret. */
    readonly secret: string,
    resource: string,
  ) {
    super(
      `the Secret ${secret} exists and was not created for MySQLSchema ${resource} (no owner reference to it): the operator does not overwrite it; rename or delete that Secret, and the credentials are created`,
    );
    this.name = 'CredentialsSecretNameTakenError';
  }
}

const b64 = (value: string) => Buffer.from(value, 'utf8').toString('base64');

/**
 * The Secret with the user's credentials (JOSDK's `SecretDependentResource`): created once with a
 * random password and never updated, so the password is never regenerated while the Secret exists;
 * garbage collected with its `MySQLSchema` through the owner reference.
 */
@Injectable()
export class SecretDependent extends CRUDKubernetesDependentResource<V1Secret, MySQLSchema> {
  constructor(private readonly db: MySQLDatabase) {
    super({
      name: SECRET_DEPENDENT,
      resourceType: ResourceTypes.Secret,
      informer: { labelSelector: SECONDARY_SELECTOR },
      // a plain create; an existing Secret is left as it is
      createOnlyIfMissing: true,
      traits: { creator: true, updater: false, deleter: true, garbageCollected: true },
    });
  }

  /**
   * Creates the Secret; a Secret of that name that is not this resource's (a create finds it
   * existing) is not used as the credentials.
   * @throws CredentialsSecretNameTakenError naming that Secret.
   */
  override async create(
    desired: V1Secret,
    resource: MySQLSchema,
    context: Context<MySQLSchema>,
  ): Promise<V1Secret> {
    const secret = await super.create(desired, resource, context);
    const uid = resource.metadata?.uid;
    if (!secret.metadata?.ownerReferences?.some((r) => r.uid === uid)) {
      const namespace = resource.metadata?.namespace ?? '';
      throw new CredentialsSecretNameTakenError(
        `${namespace}/${secretName(resource)}`,
        `${namespace}/${resource.metadata?.name ?? ''}`,
      );
    }
    return secret;
  }

  protected override targetSecondaryResourceID(resource: MySQLSchema): ResourceID {
    return new ResourceID(secretName(resource), resource.metadata?.namespace);
  }

  protected override desired(resource: MySQLSchema): V1Secret {
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: secretName(resource),
        namespace: resource.metadata!.namespace!,
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
      },
      type: 'Opaque',
      data: {
        [USERNAME_KEY]: b64(userName(resource)),
        [PASSWORD_KEY]: b64(randomBytes(18).toString('base64url')),
        [DATABASE_KEY]: b64(schemaName(resource)),
        [ADDRESS_KEY]: b64(hostPort(this.db.settings)),
      },
    };
  }
}
