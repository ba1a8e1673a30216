import type { Invitation } from '../../../src/domain/invitations/invitation';
import { sha256Of } from '../fakes/fake-secret-tokens';
import { DEFAULT_NOW } from '../fakes/fixed-clock';

const DAY = 86_400_000;
let serial = 0;

export interface InvitationOptions {
  /** The plain token; only its SHA-256 is stored, as FakeSecretTokens and the real tokens do. */
  token?: string;
  createdAt?: Date;
  expiresAt?: Date;
  usedAt?: Date;
}

/** An invitation row together with the plain token whose hash it holds (what the mailed link carries). */
export interface IssuedInvitation {
  invitation: Invitation;
  token: string;
}

export const InvitationMother = {
  /** Issued a day before DEFAULT_NOW, expiring six days after it: valid at DEFAULT_NOW. */
  valid(userId: string, options: InvitationOptions = {}): IssuedInvitation {
    const token = options.token ?? `mother-invitation-token-${++serial}`;
    const createdAt = options.createdAt ?? new Date(DEFAULT_NOW.getTime() - DAY);
    const invitation: Invitation = {
      userId,
      tokenHash: sha256Of(token),
      createdAt,
      expiresAt: options.expiresAt ?? new Date(createdAt.getTime() + 7 * DAY),
      ...(options.usedAt !== undefined ? { usedAt: options.usedAt } : {}),
    };
    return { invitation, token };
  },

  /** Expired exactly at `expiresAt` (DEFAULT_NOW unless given). */
  expired(userId: string, expiresAt: Date = DEFAULT_NOW): IssuedInvitation {
    return InvitationMother.valid(userId, { expiresAt, createdAt: new Date(expiresAt.getTime() - 7 * DAY) });
  },

  /** Used an hour before DEFAULT_NOW, and not expired. */
  used(userId: string, usedAt: Date = new Date(DEFAULT_NOW.getTime() - 3_600_000)): IssuedInvitation {
    return InvitationMother.valid(userId, { usedAt });
  },
};
