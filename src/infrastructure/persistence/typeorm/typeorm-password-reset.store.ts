import type { PasswordResetStore } from '../../../application/ports/password-reset-store.port';
import { PasswordResetSchema } from './records';
import { type SingleUseTokenRowsDeps, TypeOrmSingleUseTokenRows } from './single-use-token-rows';

/** `password_resets`: the same statements as the invitations'; a newer reset overwrites the user's row. */
export class TypeOrmPasswordResetStore extends TypeOrmSingleUseTokenRows implements PasswordResetStore {
  constructor(deps: SingleUseTokenRowsDeps) {
    super(deps, PasswordResetSchema);
  }
}
