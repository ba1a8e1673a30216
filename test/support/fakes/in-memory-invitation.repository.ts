import { InvitationUsedError } from '../../../src/domain/invitations/invitation.errors';
import type { InvitationRepository } from '../../../src/application/ports/invitation-repository.port';
import { InMemorySingleUseTokenRows } from './in-memory-single-use-token-rows';

/** Invitations as the `invitations` table holds them (see InMemorySingleUseTokenRows). */
export class InMemoryInvitationRepository extends InMemorySingleUseTokenRows implements InvitationRepository {
  protected empty(): this {
    return new InMemoryInvitationRepository() as this;
  }

  protected usedError(): Error {
    return new InvitationUsedError();
  }
}
