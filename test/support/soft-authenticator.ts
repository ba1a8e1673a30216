import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * A software WebAuthn authenticator for tests over HTTP (#24): answers the service's creation and request options
 * as a browser and a platform authenticator would (`none` attestation, ES256 keys, a signature counter), written
 * from the WebAuthn and CTAP2 texts, not with the library the service verifies with. The browser tests use
 * Chromium's own virtual authenticator instead.
 */
export class SoftAuthenticator {
  private readonly credentials: { id: Buffer; key: KeyObject; counter: number; userHandle: string }[] = [];

  constructor(private readonly origin: string) {}

  /** The credential ids held, base64url. */
  get ids(): string[] {
    return this.credentials.map((c) => c.id.toString('base64url'));
  }

  /** RegistrationResponseJSON for creation options, as `navigator.credentials.create` answers. */
  create(
    options: { challenge: string; rp: { id?: string }; user: { id: string } },
    tweak: { origin?: string; type?: string; coseKey?: Map<number, unknown> } = {},
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = randomBytes(32);
    const jwk = publicKey.export({ format: 'jwk' });
    // `coseKey`: another public key sent in its place (a test of what the service accepts as one).
    const coseKey = cbor(tweak.coseKey ?? new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const credentialData = Buffer.concat([Buffer.alloc(16), u16(id.length), id, coseKey]);
    const authData = Buffer.concat([this.rpIdHash(options.rp.id), Buffer.from([0x01 | 0x04 | 0x40]), u32(0), credentialData]);
    this.credentials.push({ id, key: privateKey, counter: 0, userHandle: options.user.id });
    const clientDataJSON = this.clientData(tweak.type ?? 'webauthn.create', options.challenge, tweak.origin);
    const attestationObject = cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return {
      id: id.toString('base64url'),
      rawId: id.toString('base64url'),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: { clientDataJSON: clientDataJSON.toString('base64url'), attestationObject: attestationObject.toString('base64url'), transports: ['internal'] },
    };
  }

  /**
   * AuthenticationResponseJSON for request options, signed by the first allowed credential held (or `credential`).
   * The counter goes up by one each time, unless `counter` says what to send.
   */
  get(options: { challenge: string; rpId?: string; allowCredentials?: { id: string }[] }, tweak: { counter?: number; credential?: string; origin?: string } = {}) {
    const allowed = new Set((options.allowCredentials ?? []).map((c) => c.id));
    const held = this.credentials.find((c) => (tweak.credential ? c.id.toString('base64url') === tweak.credential : allowed.size === 0 || allowed.has(c.id.toString('base64url'))));
    if (!held) throw new Error('SoftAuthenticator: no credential allowed by these options');
    held.counter = tweak.counter ?? held.counter + 1;
    const authData = Buffer.concat([this.rpIdHash(options.rpId), Buffer.from([0x01 | 0x04]), u32(held.counter)]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, tweak.origin);
    const signature = sign('sha256', Buffer.concat([authData, createHash('sha256').update(clientDataJSON).digest()]), held.key);
    return {
      id: held.id.toString('base64url'),
      rawId: held.id.toString('base64url'),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: held.userHandle,
      },
    };
  }

  private rpIdHash(rpId: string | undefined): Buffer {
    return createHash('sha256').update(rpId ?? new URL(this.origin).hostname).digest();
  }

  private clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** The CBOR (RFC 8949) of what CTAP2 writes: integers, byte and text strings, maps. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) return Buffer.concat([Buffer.from([(major << 5) | 25]), u16(n)]);
    return Buffer.concat([Buffer.from([(major << 5) | 26]), u32(n)]);
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (value instanceof Map) return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  throw new Error(`cbor: cannot encode ${typeof value}`);
}
