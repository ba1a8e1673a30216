/**
 * WebAuthn ceremonies (passkeys, #24) for this service's relying party (PUBLIC_URL's origin and host). Options are
 * the JSON a browser's `navigator.credentials.create/get` takes once its binary fields are decoded; responses are
 * the JSON of the credential it answers, unchecked until verified here.
 */
export interface WebAuthn {
  /** Creation options for the user, excluding the credentials it holds already; `challenge` as in the options. */
  registrationOptions(user: { id: string; name: string; displayName: string }, exclude: readonly PasskeyDescriptor[]): Promise<WebAuthnOptions>;
  /** Request options allowing the given credentials. */
  authenticationOptions(allow: readonly PasskeyDescriptor[]): Promise<WebAuthnOptions>;
  /** The challenge a response's client data names; null when the response is not one a browser writes. */
  challengeOf(response: unknown): string | null;
  /** The credential id (base64url) an assertion names; null when it names none. */
  credentialIdOf(response: unknown): string | null;
  /** A registration response answering `challenge` for this relying party: the new credential, or null. */
  verifyRegistration(response: unknown, challenge: string): Promise<RegisteredCredential | null>;
  /** An assertion answering `challenge`, signed by `passkey`: its counter, or why it is refused. */
  verifyAuthentication(response: unknown, challenge: string, passkey: StoredCredential): Promise<AssertionOutcome>;
}

export interface PasskeyDescriptor {
  credentialId: string;
  transports: readonly string[];
}

export interface StoredCredential extends PasskeyDescriptor {
  publicKey: string;
  counter: number;
}

export interface WebAuthnOptions {
  options: Record<string, unknown>;
  challenge: string;
}

export type RegisteredCredential = StoredCredential;

export type AssertionOutcome = { ok: true; counter: number } | { ok: false; reason: 'counter_regressed' | 'invalid_assertion' };
