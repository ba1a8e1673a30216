export interface Permission {
  readonly id: string;
  readonly group: string;
  readonly name: string;
}

/** The permissions the service itself checks. Names are `<group>:<action>`. */
export const Permissions = {
  usersRead: 'users:read',
  usersInvite: 'users:invite',
  usersUpdate: 'users:update',
  /** Deactivate and reactivate. */
  usersDeactivate: 'users:deactivate',
  usersDelete: 'users:delete',
  permissionsRead: 'permissions:read',
  rolesRead: 'roles:read',
  rolesWrite: 'roles:write',
  serviceAccountsRead: 'service-accounts:read',
  serviceAccountsWrite: 'service-accounts:write',
  /** POST /oauth/introspect (RFC 7662), held by a service account that checks tokens. */
  tokensIntrospect: 'tokens:introspect',
  /** GET /v1/audit-events and its export (#23). */
  auditRead: 'audit:read',
} as const;

export type PermissionName = (typeof Permissions)[keyof typeof Permissions];
