import { createPrivateKey, sign } from 'node:crypto';

/** Helpers to forge tokens the service must refuse. */
export const b64url = (value: unknown): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString()),
  };
}

export function unsigned(payload: Record<string, unknown>, alg = 'none'): string {
  return `${b64url({ alg, typ: 'JWT' })}.${b64url(payload)}.`;
}

/**
 * Signs exactly the given header and payload with any key the service may be configured with, under the
 * algorithm its type gives (EC P-256: ES256, RSA: RS256, Ed25519: EdDSA) unless the header says otherwise:
 * nothing added, nothing removed (a signing library would add or drop `iat`, which would make every
 * forgery fail for that reason alone).
 */
export function signJwt(privateKeyPem: string, payload: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const key = createPrivateKey(privateKeyPem);
  const alg = key.asymmetricKeyType === 'ec' ? 'ES256' : key.asymmetricKeyType === 'rsa' ? 'RS256' : 'EdDSA';
  const input = `${b64url({ alg, typ: 'JWT', ...header })}.${b64url(payload)}`;
  const signature =
    alg === 'EdDSA'
      ? sign(null, Buffer.from(input), key)
      : sign('sha256', Buffer.from(input), alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return `${input}.${signature.toString('base64url')}`;
}
