import { isConfirmed, type SecondFactorKind } from '../../domain/mfa/mfa';
import type { AuditChange } from '../../domain/audit/audit-entry';
import type { MfaStore } from '../ports/mfa-store.port';

/** The kinds of factor the user holds now (an active authenticator app, any passkey): what a UserMfaRemoved says is left. */
export async function factorKindsOf(mfa: Pick<MfaStore, 'factorsOf' | 'passkeysOf'>, userId: string): Promise<SecondFactorKind[]> {
  const kinds = new Set<SecondFactorKind>((await mfa.factorsOf(userId)).filter(isConfirmed).map((f) => f.type));
  if ((await mfa.passkeysOf(userId)).length > 0) kinds.add('webauthn');
  return [...kinds];
}

/**
 * Runs `remove` (false: nothing was there, and nothing is read after) and says what it changed, as the trail writes
 * it: the kinds of factor held before and after, and the recovery codes when they went with the last factor.
 */
export async function factorRemoval(
  mfa: Pick<MfaStore, 'factorsOf' | 'passkeysOf' | 'remainingRecoveryCodes'>,
  userId: string,
  remove: () => Promise<boolean>,
): Promise<{ remaining: SecondFactorKind[]; changes: AuditChange[] } | null> {
  const before = await factorKindsOf(mfa, userId);
  const codesBefore = await mfa.remainingRecoveryCodes(userId);
  if (!(await remove())) return null;
  const remaining = await factorKindsOf(mfa, userId);
  const codesAfter = codesBefore > 0 ? await mfa.remainingRecoveryCodes(userId) : 0;
  const changes: AuditChange[] = [{ field: 'second_factors', before, after: remaining }];
  if (codesAfter !== codesBefore) changes.push({ field: 'recovery_codes_remaining', before: codesBefore, after: codesAfter });
  return { remaining, changes };
}
