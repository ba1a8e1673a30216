import type { DomainEvent } from '../shared/domain-event';

export const USER_INVITED = 'UserInvited';

export interface UserInvitedData {
  user_id: string;
  email: string;
  name?: string;
  role: { _id: string; name: string };
  invited_by?: string;
  invited_date: string;
}

export type UserInvited = DomainEvent<typeof USER_INVITED, UserInvitedData>;
