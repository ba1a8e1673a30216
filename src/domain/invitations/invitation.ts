import type { SingleUseToken } from '../shared/single-use-token';

/** The single-use secret behind an invitation link; a resend issues a new one, which kills the old. */
export type Invitation = SingleUseToken;
