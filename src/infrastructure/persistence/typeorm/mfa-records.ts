import { EntitySchema } from 'typeorm';
import type { MfaFactor, MfaFactorType } from '../../../domain/mfa/mfa';

const datetime = { type: 'datetime', precision: 3 } as const;

export interface MfaFactorRecord {
  id: string;
  userId: string;
  type: string;
  sealedSecret: string;
  createdAt: Date;
  confirmedAt: Date | null;
  /** bigint: drivers may answer it as text. */
  lastUsedStep: string | number | null;
}

export interface RecoveryCodeRecord {
  codeHash: string;
  userId: string;
  /** The salt of the code's set (a raw argon2id under it is the hash); null on codes stored before 2026-12-06 (SHA-256). */
  salt: string | null;
  createdAt: Date;
  usedAt: Date | null;
}

export interface MfaChallengeRecord {
  tokenHash: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  /** 1: handed out for the right password; 0: a wrong one's ticket, which nothing completes. */
  passwordMatched: number;
}

/** Second factors (#24): the secret sealed with MFA_ENCRYPTION_KEY, never in clear. */
export const MfaFactorSchema = new EntitySchema<MfaFactorRecord>({
  name: 'MfaFactor',
  tableName: 'mfa_factors',
  columns: {
    id: { type: String, length: 36, primary: true },
    userId: { type: String, length: 36, name: 'user_id' },
    type: { type: String, length: 16 },
    sealedSecret: { type: String, length: 255, name: 'sealed_secret' },
    createdAt: { ...datetime, name: 'created_at' },
    confirmedAt: { ...datetime, nullable: true, name: 'confirmed_at' },
    lastUsedStep: { type: 'bigint', nullable: true, name: 'last_used_step' },
  },
});

export const RecoveryCodeSchema = new EntitySchema<RecoveryCodeRecord>({
  name: 'MfaRecoveryCode',
  tableName: 'mfa_recovery_codes',
  columns: {
    codeHash: { type: String, length: 64, primary: true, name: 'code_hash' },
    userId: { type: String, length: 36, name: 'user_id' },
    salt: { type: String, length: 32, nullable: true },
    createdAt: { ...datetime, name: 'created_at' },
    usedAt: { ...datetime, nullable: true, name: 'used_at' },
  },
});

/**
 * Sign-in tickets as versions before sealed tickets (SignInTickets) stored them: nothing writes or reads them now;
 * the sweep deletes those left as they expire, and the table stays while a rolling update may run both versions.
 */
export const MfaChallengeSchema = new EntitySchema<MfaChallengeRecord>({
  name: 'MfaChallenge',
  tableName: 'mfa_challenges',
  columns: {
    tokenHash: { type: String, length: 64, primary: true, name: 'token_hash' },
    userId: { type: String, length: 36, name: 'user_id' },
    createdAt: { ...datetime, name: 'created_at' },
    expiresAt: { ...datetime, name: 'expires_at' },
    usedAt: { ...datetime, nullable: true, name: 'used_at' },
    passwordMatched: { type: 'int', default: 1, name: 'password_matched' },
  },
});

export interface WebAuthnCredentialRecord {
  id: string;
  userId: string;
  name: string;
  credentialId: string;
  publicKey: string;
  /** bigint: drivers may answer it as text. */
  counter: string | number;
  /** Comma-separated. */
  transports: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface WebAuthnChallengeRecord {
  challengeHash: string;
  userId: string;
  ceremony: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Passkeys (#24): WebAuthn credentials, several per user. */
export const WebAuthnCredentialSchema = new EntitySchema<WebAuthnCredentialRecord>({
  name: 'WebAuthnCredential',
  tableName: 'webauthn_credentials',
  columns: {
    id: { type: String, length: 36, primary: true },
    userId: { type: String, length: 36, name: 'user_id' },
    name: { type: String, length: 64 },
    credentialId: { type: String, length: 1400, name: 'credential_id' },
    publicKey: { type: 'text', name: 'public_key' },
    counter: { type: 'bigint' },
    transports: { type: String, length: 255 },
    createdAt: { ...datetime, name: 'created_at' },
    lastUsedAt: { ...datetime, nullable: true, name: 'last_used_at' },
  },
});

export const WebAuthnChallengeSchema = new EntitySchema<WebAuthnChallengeRecord>({
  name: 'WebAuthnChallenge',
  tableName: 'webauthn_challenges',
  columns: {
    challengeHash: { type: String, length: 64, primary: true, name: 'challenge_hash' },
    userId: { type: String, length: 36, name: 'user_id' },
    ceremony: { type: String, length: 16 },
    createdAt: { ...datetime, name: 'created_at' },
    expiresAt: { ...datetime, name: 'expires_at' },
  },
});

export const MFA_ENTITY_SCHEMAS = [MfaFactorSchema, RecoveryCodeSchema, MfaChallengeSchema, WebAuthnCredentialSchema, WebAuthnChallengeSchema];

/** A factor as stored, as the domain has it (the step a number whatever the driver answers). */
export function toFactor(row: MfaFactorRecord): MfaFactor {
  return {
    id: row.id,
    userId: row.userId,
    type: row.type as MfaFactorType,
    sealedSecret: row.sealedSecret,
    createdAt: row.createdAt,
    confirmedAt: row.confirmedAt ?? null,
    lastUsedStep: row.lastUsedStep === null || row.lastUsedStep === undefined ? null : Number(row.lastUsedStep),
  };
}
