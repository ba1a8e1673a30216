import { InvalidMfaTokenError, MfaNotEnabledError } from '../../domain/mfa/mfa';
import type { Clock } from '../ports/clock.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { SignInTickets } from '../ports/sign-in-tickets.port';
import { openTicket } from './own-factor-access';
import type { PasskeyCeremonies } from './passkey-ceremonies';

/**
 * New assertion options for a sign-in's second step (the password step's carry one set; each challenge answers
 * once, so a browser that failed or was cancelled asks again here), while its mfa_token is good.
 */
export class PasskeySignInOptionsUseCase {
  constructor(private readonly deps: { mfaStore: MfaStore; signInTickets: SignInTickets; passkeyCeremonies: PasskeyCeremonies; clock: Clock }) {}

  async execute({ mfaToken }: { mfaToken: string }): Promise<Record<string, unknown>> {
    const ticket = await openTicket(this.deps, mfaToken);
    if (!ticket) throw new InvalidMfaTokenError();
    const options = await this.deps.passkeyCeremonies.signInOptions(ticket.holder.id);
    if (!options) throw new MfaNotEnabledError('The account holds no passkey: complete the sign-in with a code');
    return options;
  }
}
