import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createSigner, type JwtHeader } from 'fast-jwt';

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

export function otherEd25519Key(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

export function signEdDsa(privateKeyPem: string, payload: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  return createSigner({
    key: privateKeyPem,
    algorithm: 'EdDSA',
    noTimestamp: true,
    header: { alg: 'EdDSA', ...header } as JwtHeader,
    kid: header.kid as string | undefined,
  })(payload);
}

export function unsigned(payload: Record<string, unknown>, alg = 'none'): string {
  return `${b64url({ alg, typ: 'JWT' })}.${b64url(payload)}.`;
}
