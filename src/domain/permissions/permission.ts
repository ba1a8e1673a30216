export interface Permission {
  readonly id: string;
  readonly group: string;
  readonly name: string;
}

/** The permissions the service itself checks. Names are `<group>:<action>`. */
export const Permissions = {
  usersRead: 'users:read',
  usersInvite: 'users:invite',
  permissionsRead: 'permissions:read',
} as const;

export type PermissionName = (typeof Permissions)[keyof typeof Permissions];
