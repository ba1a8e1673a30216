/**
 * What a viewer sees, by the permissions of their role: the console shows the screens and actions a role
 * allows (the API still decides; a 403 that happens anyway is shown in words). No DOM here: unit-tested.
 */
import { Permissions } from '../../../src/domain/permissions/permission';
import { missingPermissions } from '../../../src/domain/roles/role';

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

/** The hand-out rule, as the API applies it (the domain's own function): the permissions of a role the viewer lacks. */
export function beyondViewer(viewer: readonly string[], role: { permissions: readonly string[] }): string[] {
  return missingPermissions(viewer, role.permissions);
}

/** A role whose every permission the viewer holds: one the viewer may hand out, and whose holders it may change. */
export function canHandOut(viewer: readonly string[], role: { permissions: readonly string[] }): boolean {
  return beyondViewer(viewer, role).length === 0;
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

/** The screens whose path may name one of their records (/console/users/{id}). */
const WITH_RECORDS: readonly Screen[] = ['users', 'roles', 'service-accounts'];

export interface Route {
  screen: Screen;
  /** The record the path names, decoded. */
  id: string | null;
}

/** A console path's screen and record, or null when no screen has that path (/console/nothing, /console/users/1/x). */
export function routeOf(pathname: string): Route | null {
  const [, root, name, id, ...rest] = pathname.split('/');
  const screen = SCREENS.find((entry) => entry.screen === name)?.screen;
  if (root !== 'console' || !screen || rest.length > 0) return null;
  if (id === undefined) return { screen, id: null };
  if (!id || !WITH_RECORDS.includes(screen)) return null;
  try {
    return { screen, id: decodeURIComponent(id) };
  } catch {
    return null; // a malformed escape (%E0) names no record
  }
}

export function allowed(permissions: readonly string[], screen: Screen): boolean {
  return screensFor(permissions).some((entry) => entry.screen === screen);
}
