import { PASSKEY_NAME_MAX_LENGTH } from '../../../domain/mfa/passkey';
import type { PasskeyView } from '../../../application/mfa/passkey.use-cases';
import { problemResponse, totpCodeSchema } from '../schemas';

/** The JSON shapes of WebAuthn (passkeys, #24) on the wire: options handed to a browser, and what it answers. */

const base64url = (maxLength: number, description?: string) => ({ type: 'string', minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+$', ...(description ? { description } : {}) }) as const;
const credentialDescriptor = {
  type: 'object',
  required: ['id', 'type'],
  properties: { id: { type: 'string' }, type: { type: 'string' }, transports: { type: 'array', items: { type: 'string' } } },
} as const;

/** PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3): `navigator.credentials.create({ publicKey })` once decoded. */
export const creationOptionsSchema = {
  type: 'object',
  description: 'Options for `navigator.credentials.create` (WebAuthn’s PublicKeyCredentialCreationOptionsJSON: decode `challenge`, `user.id` and each `excludeCredentials[].id` from base64url). The challenge answers once, within 5 minutes.',
  required: ['challenge', 'rp', 'user', 'pubKeyCredParams'],
  properties: {
    challenge: { type: 'string' },
    rp: { type: 'object', required: ['name'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
    user: { type: 'object', required: ['id', 'name', 'displayName'], properties: { id: { type: 'string' }, name: { type: 'string' }, displayName: { type: 'string' } } },
    pubKeyCredParams: { type: 'array', items: { type: 'object', required: ['alg', 'type'], properties: { alg: { type: 'integer' }, type: { type: 'string' } } } },
    timeout: { type: 'integer' },
    excludeCredentials: { type: 'array', items: credentialDescriptor },
    authenticatorSelection: {
      type: 'object',
      properties: { authenticatorAttachment: { type: 'string' }, residentKey: { type: 'string' }, requireResidentKey: { type: 'boolean' }, userVerification: { type: 'string' } },
    },
    hints: { type: 'array', items: { type: 'string' } },
    attestation: { type: 'string' },
    extensions: { type: 'object', properties: { credProps: { type: 'boolean' } } },
  },
} as const;

/** PublicKeyCredentialRequestOptionsJSON: `navigator.credentials.get({ publicKey })` once decoded. */
export const requestOptionsSchema = {
  type: 'object',
  description: 'Options for `navigator.credentials.get` (WebAuthn’s PublicKeyCredentialRequestOptionsJSON: decode `challenge` and each `allowCredentials[].id` from base64url). The challenge answers once, within 5 minutes.',
  required: ['challenge'],
  properties: {
    challenge: { type: 'string' },
    timeout: { type: 'integer' },
    rpId: { type: 'string' },
    allowCredentials: { type: 'array', items: credentialDescriptor },
    userVerification: { type: 'string' },
    hints: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** What every credential JSON carries (`PublicKeyCredential.toJSON()`, or the same built by hand). Ids: at most 1023 bytes. */
const credentialCommon = {
  id: base64url(1400, 'The credential id'),
  rawId: base64url(1400),
  type: { type: 'string', enum: ['public-key'] },
  authenticatorAttachment: { type: 'string', maxLength: 32 },
  clientExtensionResults: { type: 'object', maxProperties: 16 },
} as const;

/** RegistrationResponseJSON: the credential `navigator.credentials.create` answered. */
export const registrationResponseSchema = {
  type: 'object',
  required: ['id', 'rawId', 'type', 'response', 'clientExtensionResults'],
  additionalProperties: false,
  properties: {
    ...credentialCommon,
    response: {
      type: 'object',
      required: ['clientDataJSON', 'attestationObject'],
      properties: {
        clientDataJSON: base64url(4096),
        attestationObject: base64url(16384),
        authenticatorData: base64url(16384),
        transports: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 32 } },
        publicKeyAlgorithm: { type: 'integer' },
        publicKey: base64url(8192),
      },
    },
  },
} as const;

/** AuthenticationResponseJSON: the assertion `navigator.credentials.get` answered. */
export const assertionSchema = {
  type: 'object',
  description: 'A WebAuthn assertion (AuthenticationResponseJSON) answering options of this sign-in (`webauthn_options`, or POST /v1/auth/signin/mfa/webauthn-options)',
  required: ['id', 'rawId', 'type', 'response', 'clientExtensionResults'],
  additionalProperties: false,
  properties: {
    ...credentialCommon,
    response: {
      type: 'object',
      required: ['clientDataJSON', 'authenticatorData', 'signature'],
      properties: {
        clientDataJSON: base64url(4096),
        authenticatorData: base64url(4096),
        signature: base64url(2048),
        userHandle: { type: 'string', maxLength: 128 },
      },
    },
  },
} as const;

export const passkeyNameSchema = { type: 'string', minLength: 1, maxLength: PASSKEY_NAME_MAX_LENGTH, description: 'What the owner calls it (“Work laptop”)' } as const;

const datetime = { type: 'string', format: 'date-time' } as const;

export const passkeySchema = {
  type: 'object',
  required: ['id', 'name', 'created_date'],
  properties: { id: { type: 'string' }, name: { type: 'string' }, created_date: datetime, last_used_date: datetime },
} as const;

export function passkeyBody(p: PasskeyView) {
  return { id: p.id, name: p.name, created_date: p.createdAt.toISOString(), ...(p.lastUsedAt ? { last_used_date: p.lastUsedAt.toISOString() } : {}) };
}

/** A passkey's id in a path: ASCII, as the column is. */
export const passkeyIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 36, pattern: '^[\\x20-\\x7e]+$' } },
} as const;

/**
 * What proves the owner before a factor is added or goes, or new recovery codes are made: the password, or a current
 * code of the authenticator app (ASVS V7.5.1: a bearer token alone changes no second factor).
 */
export const factorProofBody = (passwordMaxLength: number) =>
  ({
    type: 'object',
    additionalProperties: false,
    properties: {
      password: { type: 'string', minLength: 1, maxLength: passwordMaxLength },
      code: totpCodeSchema,
    },
    oneOf: [{ required: ['password'] }, { required: ['code'] }],
  }) as const;

/** How a route that takes `factorProofBody` says so. */
export const factorProofDescription = '`password` or `code` is checked as a sign-in checks it and counts against the same lockout; a code used here is used up.';

/** A refused proof, or a body without one. */
export const wrongFactorProof = problemResponse(
  'Wrong password (`WRONG_CURRENT_PASSWORD`) or code (`INVALID_MFA_CODE`), or a locked account; neither or both given, or malformed (`VALIDATION_FAILED`)',
);
