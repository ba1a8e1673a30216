import type { Role } from '../../domain/roles/role';
import { isoTimestamp } from '../../domain/shared/iso-timestamp';
import type { User, UserStatus } from '../../domain/users/user';

/** A user as the interface shows it: fields not known yet are left out, never a secret. */
export interface UserView {
  _id: string;
  name?: string;
  email: string;
  username?: string;
  role: { _id: string; name: string; permissions: string[] };
  invited_date: string;
  invited_by?: string;
  joined_date?: string;
  updated_date?: string;
  updated_by?: string;
}

export function toUserView(user: User, role: Role | undefined): UserView {
  const view: UserView = {
    _id: user.id,
    email: user.email,
    role: role
      ? { _id: role.id, name: role.name, permissions: [...role.permissions] }
      : { _id: user.roleId, name: '', permissions: [] },
    invited_date: isoTimestamp(user.invitedAt),
  };
  if (user.name !== undefined) view.name = user.name;
  if (user.username !== undefined) view.username = user.username;
  if (user.invitedBy !== undefined) view.invited_by = user.invitedBy;
  if (user.joinedAt !== undefined) view.joined_date = isoTimestamp(user.joinedAt);
  if (user.updatedAt !== undefined) view.updated_date = isoTimestamp(user.updatedAt);
  if (user.updatedBy !== undefined) view.updated_by = user.updatedBy;
  return view;
}

/** One user as `GET /v1/users/{id}` shows it: the list's shape plus its status. */
export interface UserDetailView extends UserView {
  status: UserStatus;
  /** A pending user's: when the current invitation link expires (GET /v1/users/{id} only). */
  invitation_expires_date?: string;
}

/** A user as read or changed, with the version a later change may name (an ETag, If-Match). */
export interface UserDetails {
  user: UserDetailView;
  version: number;
}

export function toUserDetails(user: User, role: Role | undefined): UserDetails {
  // Only a live user is shown: an erased one is never read back (UserRepository).
  const status = user.status === 'deleted' ? 'deactivated' : user.status;
  return { user: { ...toUserView(user, role), status }, version: user.version };
}
