/**
 * WebAuthn in the browser, through its own JSON forms (WebAuthn Level 3: `parse…FromJSON` and `toJSON()`, which
 * the API reads and writes as they are), so no base64url code of ours stands between the API and the browser.
 */
export function passkeysSupported(): boolean {
  return typeof PublicKeyCredential !== 'undefined' && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function';
}

export async function createPasskey(options: unknown): Promise<PublicKeyCredentialJSON> {
  const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(options as PublicKeyCredentialCreationOptionsJSON);
  const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential | null;
  if (!credential) throw new Error('No passkey was created.');
  return credential.toJSON();
}

export async function usePasskey(options: unknown): Promise<PublicKeyCredentialJSON> {
  const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(options as PublicKeyCredentialRequestOptionsJSON);
  const credential = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential | null;
  if (!credential) throw new Error('No passkey was used.');
  return credential.toJSON();
}

/** A browser's refusal (cancelled, timed out, no matching passkey) in words. */
export function passkeyFailure(error: unknown): string | null {
  if (!(error instanceof DOMException)) return null;
  if (error.name === 'NotAllowedError') return 'The passkey was not used: the request was cancelled or timed out.';
  if (error.name === 'InvalidStateError') return 'This authenticator holds a passkey for this account already.';
  if (error.name === 'SecurityError') return 'Passkeys work only at the service’s own address (PUBLIC_URL).';
  return `The browser refused the passkey (${error.name}).`;
}
