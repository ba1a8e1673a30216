import type { Role } from '../../domain/roles/role';
import type { PublicJwk } from '../../domain/service-accounts/public-jwk-set';
import type { ServiceAccountSecretState, ServiceAccountState } from '../../domain/service-accounts/service-account';
import { isoTimestamp } from '../../domain/shared/iso-timestamp';

/** A service account as the administration shows it: never a secret nor a hash. */
export interface ServiceAccountView {
  _id: string;
  client_id: string;
  name: string;
  description?: string;
  role: { _id: string; name: string; permissions: string[] };
  disabled: boolean;
  /** The registered public keys (inline JWKs). */
  keys: PublicJwk[];
  created_date: string;
  created_by?: string;
  updated_date?: string;
  updated_by?: string;
}

/** A secret as listed: when it was made, when it ends, when it was last used; never the secret. */
export interface ServiceAccountSecretView {
  _id: string;
  created_date: string;
  expires_date?: string;
  last_used_date?: string;
}

export interface ServiceAccountAnswer {
  serviceAccount: ServiceAccountView;
  version: number;
}

export function toServiceAccountView(state: ServiceAccountState, role: Role | null | undefined): ServiceAccountView {
  return {
    _id: state.id,
    client_id: state.clientId,
    name: state.name,
    ...(state.description !== undefined ? { description: state.description } : {}),
    role: { _id: state.roleId, name: role?.name ?? '', permissions: [...(role?.permissions ?? [])] },
    disabled: state.disabled,
    keys: state.keys.map((k) => ({ ...k })),
    created_date: isoTimestamp(state.createdAt),
    ...(state.createdBy ? { created_by: state.createdBy } : {}),
    ...(state.updatedAt ? { updated_date: isoTimestamp(state.updatedAt) } : {}),
    ...(state.updatedBy ? { updated_by: state.updatedBy } : {}),
  };
}

export function toSecretView(secret: ServiceAccountSecretState): ServiceAccountSecretView {
  return {
    _id: secret.id,
    created_date: isoTimestamp(secret.createdAt),
    ...(secret.expiresAt ? { expires_date: isoTimestamp(secret.expiresAt) } : {}),
    ...(secret.lastUsedAt ? { last_used_date: isoTimestamp(secret.lastUsedAt) } : {}),
  };
}
