import { generateKeyPairSync, type KeyObject } from 'node:crypto';

const pem = (key: KeyObject) => key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();

/**
 * Signing-key settings under which the key set holds every key type the service signs with: an ES256 current
 * key, RS256 and EdDSA keys retired (JWT_PREVIOUS_PUBLIC_KEYS). Fresh keys each call.
 */
export function everyKeyTypeSettings(): Record<'JWT_PRIVATE_KEY' | 'JWT_PUBLIC_KEY' | 'JWT_PREVIOUS_PUBLIC_KEYS', string> {
  const current = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const retired = [generateKeyPairSync('rsa', { modulusLength: 2048 }), generateKeyPairSync('ed25519')];
  return {
    JWT_PRIVATE_KEY: pem(current.privateKey),
    JWT_PUBLIC_KEY: pem(current.publicKey),
    JWT_PREVIOUS_PUBLIC_KEYS: retired.map((pair) => pem(pair.publicKey)).join('\n'),
  };
}
