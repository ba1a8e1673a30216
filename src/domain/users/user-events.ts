import type { DomainEvent } from '../shared/domain-event';
import type { UserInvitedData } from './user-invited.event';

export const USER_JOINED = 'UserJoined';
export const USER_INVITATION_RESENT = 'UserInvitationResent';
export const USER_INVITATION_REVOKED = 'UserInvitationRevoked';

export interface UserJoinedData {
  user_id: string;
  email: string;
  username: string;
  name: string;
  role: { _id: string; name: string };
  joined_date: string;
}

export interface UserInvitationResentData {
  user_id: string;
  email: string;
  name?: string;
  role: { _id: string; name: string };
  resent_by: string;
  resent_date: string;
}

export interface UserInvitationRevokedData {
  user_id: string;
  email: string;
  revoked_by: string;
  revoked_date: string;
}

export type UserJoined = DomainEvent<typeof USER_JOINED, UserJoinedData>;
export type UserInvitationResent = DomainEvent<typeof USER_INVITATION_RESENT, UserInvitationResentData>;
export type UserInvitationRevoked = DomainEvent<typeof USER_INVITATION_REVOKED, UserInvitationRevokedData>;

export type { UserInvitedData };
