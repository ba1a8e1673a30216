import { PasswordResetUsedError } from '../../../src/domain/users/password-reset';
import type { PasswordResetStore } from '../../../src/application/ports/password-reset-store.port';
import { InMemorySingleUseTokenRows } from './in-memory-single-use-token-rows';

/** Password resets as the `password_resets` table holds them: the shape of invitations (see InMemorySingleUseTokenRows). */
export class InMemoryPasswordResetStore extends InMemorySingleUseTokenRows implements PasswordResetStore {
  protected empty(): this {
    return new InMemoryPasswordResetStore() as this;
  }

  protected usedError(): Error {
    return new PasswordResetUsedError();
  }
}
