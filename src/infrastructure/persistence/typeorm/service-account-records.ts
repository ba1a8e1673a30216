import { EntitySchema } from 'typeorm';

/** Row shapes of the service-account tables (migration 1765000000000). */
export interface ServiceAccountRecord {
  id: string;
  clientId: string;
  name: string;
  /** The lower-cased name, unique: names are unique case-insensitively. */
  nameKey: string;
  description: string | null;
  roleId: string;
  disabled: number;
  /** Seconds since the epoch (bigint: drivers may answer it as text); null: never disabled. */
  tokensValidFrom: number | string | null;
  /** The registered public keys, a JSON array of JWKs; null when none. */
  jwks: string | null;
  version: number;
  createdAt: Date;
  createdBy: string | null;
  updatedAt: Date | null;
  updatedBy: string | null;
}

export interface ServiceAccountSecretRecord {
  id: string;
  serviceAccountId: string;
  /** SHA-256 (hex) of the secret. */
  secretHash: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export interface ClientAssertionJtiRecord {
  /** SHA-256 (hex) of the client id and the assertion's `jti`. */
  id: string;
  expiresAt: Date;
}

const datetime = { type: 'datetime', precision: 3 } as const;

export const ServiceAccountSchema = new EntitySchema<ServiceAccountRecord>({
  name: 'ServiceAccount',
  tableName: 'service_accounts',
  columns: {
    id: { type: String, length: 36, primary: true },
    clientId: { type: String, length: 64, name: 'client_id' },
    name: { type: String, length: 64 },
    nameKey: { type: String, length: 64, name: 'name_key' },
    description: { type: String, length: 500, nullable: true },
    roleId: { type: String, length: 36, name: 'role_id' },
    disabled: { type: 'int', default: 0 },
    tokensValidFrom: { type: 'bigint', nullable: true, name: 'tokens_valid_from' },
    jwks: { type: 'text', nullable: true },
    version: { type: 'int', default: 1 },
    createdAt: { ...datetime, name: 'created_at' },
    createdBy: { type: String, length: 36, nullable: true, name: 'created_by' },
    updatedAt: { ...datetime, nullable: true, name: 'updated_at' },
    updatedBy: { type: String, length: 36, nullable: true, name: 'updated_by' },
  },
});

export const ServiceAccountSecretSchema = new EntitySchema<ServiceAccountSecretRecord>({
  name: 'ServiceAccountSecret',
  tableName: 'service_account_secrets',
  columns: {
    id: { type: String, length: 36, primary: true },
    serviceAccountId: { type: String, length: 36, name: 'service_account_id' },
    secretHash: { type: String, length: 64, name: 'secret_hash' },
    createdAt: { ...datetime, name: 'created_at' },
    expiresAt: { ...datetime, nullable: true, name: 'expires_at' },
    lastUsedAt: { ...datetime, nullable: true, name: 'last_used_at' },
  },
});

export const ClientAssertionJtiSchema = new EntitySchema<ClientAssertionJtiRecord>({
  name: 'ClientAssertionJti',
  tableName: 'client_assertion_jtis',
  columns: {
    id: { type: String, length: 64, primary: true },
    expiresAt: { ...datetime, name: 'expires_at' },
  },
});
