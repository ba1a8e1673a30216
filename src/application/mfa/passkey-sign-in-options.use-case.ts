import { InvalidMfaTokenError, MfaNotEnabledError } from '../../domain/mfa/mfa';
import type { Clock } from '../ports/clock.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { UserRepository } from '../ports/user-repository.port';
import { ticketHolder } from './own-factor-access';
import type { PasskeyCeremonies } from './passkey-ceremonies';

/**
 * New assertion options for a sign-in's second step (the password step's carry one set; each challenge answers
 * once, so a browser that failed or was cancelled asks again here), while its mfa_token is good.
 */
export class PasskeySignInOptionsUseCase {
  constructor(private readonly deps: { mfaStore: MfaStore; secretTokens: SecretTokens; userRepository: UserRepository; passkeyCeremonies: PasskeyCeremonies; clock: Clock }) {}

  async execute({ mfaToken }: { mfaToken: string }): Promise<Record<string, unknown>> {
    const { mfaStore, secretTokens, userRepository, passkeyCeremonies, clock } = this.deps;
    const challenge = await mfaStore.findChallenge(secretTokens.hash(mfaToken));
    const user = await ticketHolder(userRepository, challenge, clock.now());
    if (!user || !user.isJoined || user.status !== 'active') throw new InvalidMfaTokenError();
    const options = await passkeyCeremonies.signInOptions(user.id);
    if (!options) throw new MfaNotEnabledError('The account holds no passkey: complete the sign-in with a code');
    return options;
  }
}
