import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';

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

/**
 * Signs exactly the given header and payload with an Ed25519 key: nothing added, nothing removed
 * (a signing library would add or drop `iat`, which would make every forgery fail for that reason alone).
 */
export function signEdDsa(privateKeyPem: string, payload: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const input = `${b64url({ alg: 'EdDSA', typ: 'JWT', ...header })}.${b64url(payload)}`;
  return `${input}.${sign(null, Buffer.from(input), createPrivateKey(privateKeyPem)).toString('base64url')}`;
}

export function unsigned(payload: Record<string, unknown>, alg = 'none'): string {
  return `${b64url({ alg, typ: 'JWT' })}.${b64url(payload)}.`;
}
