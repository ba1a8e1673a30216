/**
 * What a viewer sees, by the permissions of their role: the console shows the screens and actions a role
 * allows (the API still decides; a 403 that happens anyway is shown in words). No DOM here: unit-tested.
 */
import { Permissions } from '../../../src/domain/permissions/permission';

/** The permission names, as the service defines them (its domain module is plain TypeScript, bundled in). */
export const P = Permissions;

export type Screen = 'users' | 'invitations' | 'roles' | 'service-accounts' | 'audit' | 'account';

export interface ScreenEntry {
  screen: Screen;
  label: string;
  path: string;
}

const SCREENS: readonly (ScreenEntry & { needs: readonly string[] })[] = [
  { screen: 'users', label: 'Users', path: '/console/users', needs: [P.usersRead] },
  // Inviting takes users:invite alone, as the API's does; the screen's list of pending ones also takes users:read.
  { screen: 'invitations', label: 'Invitations', path: '/console/invitations', needs: [P.usersInvite] },
  { screen: 'roles', label: 'Roles', path: '/console/roles', needs: [P.rolesRead] },
  { screen: 'service-accounts', label: 'Service accounts', path: '/console/service-accounts', needs: [P.serviceAccountsRead] },
  { screen: 'audit', label: 'Audit', path: '/console/audit', needs: [P.auditRead] },
  { screen: 'account', label: 'My account', path: '/console/account', needs: [] },
];

export const holds = (permissions: readonly string[], ...needed: string[]): boolean => needed.every((p) => permissions.includes(p));

/** The screens a role allows, in the navigation's order; "My account" always. */
export function screensFor(permissions: readonly string[]): ScreenEntry[] {
  return SCREENS.filter((entry) => holds(permissions, ...entry.needs)).map(({ screen, label, path }) => ({ screen, label, path }));
}

/** Where /console leads: the first screen the role allows. */
export function homePath(permissions: readonly string[]): string {
  return screensFor(permissions)[0]!.path;
}

/** The hand-out rule, as the API applies it: a role whose every permission the viewer holds. */
export function canHandOut(viewer: readonly string[], role: { permissions: readonly string[] }): boolean {
  return role.permissions.every((p) => viewer.includes(p));
}

/** The permissions a viewer may put in a role (the hand-out rule: their own), grouped by the name's `<group>:`. */
export function groupPermissions(names: readonly string[]): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const name of [...names].sort()) {
    const group = name.includes(':') ? name.slice(0, name.indexOf(':')) : 'other';
    groups.set(group, [...(groups.get(group) ?? []), name]);
  }
  return [...groups.entries()];
}

/** The screen a console path belongs to, or null for an unknown one. */
export function screenOf(pathname: string): Screen | null {
  const match = /^\/console\/([a-z-]+)/.exec(pathname);
  const name = match?.[1];
  return SCREENS.some((entry) => entry.screen === name) ? (name as Screen) : null;
}

export function allowed(permissions: readonly string[], screen: Screen): boolean {
  return screensFor(permissions).some((entry) => entry.screen === screen);
}
