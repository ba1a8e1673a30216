import { isConfirmed, type SecondFactorKind } from '../../domain/mfa/mfa';
import type { MfaStore } from '../ports/mfa-store.port';

/** The kinds of factor the user holds now (an active authenticator app, any passkey): what a UserMfaRemoved says is left. */
export async function factorKindsOf(mfa: Pick<MfaStore, 'factorsOf' | 'passkeysOf'>, userId: string): Promise<SecondFactorKind[]> {
  const kinds = new Set<SecondFactorKind>((await mfa.factorsOf(userId)).filter(isConfirmed).map((f) => f.type));
  if ((await mfa.passkeysOf(userId)).length > 0) kinds.add('webauthn');
  return [...kinds];
}
