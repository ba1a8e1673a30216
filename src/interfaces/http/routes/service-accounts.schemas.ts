import { userIdParams } from '../schemas';
import { versionHeaders } from '../versioned-resource';

/** The JSON schemas of the service-account routes (service-accounts.routes.ts): bodies, parameters, answers. */
export const { etag: etagHeader, ifMatch: ifMatchHeaders } = versionHeaders('service account', 'SERVICE_ACCOUNT_CHANGED_CONCURRENTLY');

/** Ids are as user ids are: printable ASCII, at most 36 characters. */
export const accountIdParams = userIdParams;
export const secretIdParams = {
  type: 'object',
  required: ['id', 'secretId'],
  properties: { id: userIdParams.properties.id, secretId: userIdParams.properties.id },
} as const;

export const datetime = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds' } as const;

/** A registered public key as stored: only the members of its kind (the body's checks refuse any other). */
export const publicJwk = {
  type: 'object',
  description: 'A public key (JWK): `EC` P-256 (`crv`, `x`, `y`: a point of the curve), `RSA` of 2048 to 8192 bits with an odd exponent of at least 65537 (`n`, `e`) or `OKP` Ed25519 (`crv`, `x`: a point of large order); always a `kid`',
  required: ['kty', 'kid'],
  additionalProperties: false,
  properties: {
    kty: { type: 'string', enum: ['EC', 'RSA', 'OKP'] },
    kid: { type: 'string' },
    alg: { type: 'string', enum: ['ES256', 'RS256', 'EdDSA'] },
    use: { type: 'string', const: 'sig' },
    crv: { type: 'string', enum: ['P-256', 'Ed25519'] },
    x: { type: 'string' },
    y: { type: 'string' },
    n: { type: 'string' },
    e: { type: 'string' },
  },
} as const;

export const serviceAccountProperties = {
  _id: { type: 'string', description: 'The account’s id: the `sub` of its tokens' },
  client_id: { type: 'string', description: 'What it authenticates as at the token endpoint' },
  name: { type: 'string' },
  description: { type: 'string' },
  role: {
    type: 'object',
    required: ['_id', 'name', 'permissions'],
    properties: { _id: { type: 'string' }, name: { type: 'string' }, permissions: { type: 'array', items: { type: 'string' } } },
  },
  disabled: { type: 'boolean', description: 'A disabled account cannot authenticate; its tokens are refused' },
  keys: { type: 'array', items: publicJwk, description: 'The public keys it signs client assertions with (`private_key_jwt`)' },
  created_date: datetime,
  created_by: { type: 'string' },
  updated_date: datetime,
  updated_by: { type: 'string' },
} as const;

export const serviceAccount = {
  type: 'object',
  description: 'A service account: never a secret nor a hash',
  required: ['_id', 'client_id', 'name', 'role', 'disabled', 'keys', 'created_date'],
  properties: serviceAccountProperties,
} as const;

export const secretProperties = {
  _id: { type: 'string' },
  created_date: datetime,
  expires_date: { ...datetime, description: 'When it stops working; absent: until deleted' },
  last_used_date: { ...datetime, description: 'Its last successful use at the token endpoint' },
} as const;

export const secret = { type: 'object', required: ['_id', 'created_date'], properties: secretProperties } as const;

export const clientSecret = { type: 'string', description: 'Shown this once: 256 random bits, base64url. Only its SHA-256 is stored.' } as const;

export const name = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description: 'Letters, digits, `.`, `_`, `:` or `-`, starting with a letter; unique case-insensitively',
} as const;
export const description = { type: 'string', maxLength: 500, description: 'Free text, at most 500 characters' } as const;
export const role = { type: 'string', minLength: 1, maxLength: 64, description: 'A role’s name or `_id`: nobody gives a role holding a permission they lack' } as const;

