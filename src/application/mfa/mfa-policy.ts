import type { MfaStore } from '../ports/mfa-store.port';
import type { RoleRepository } from '../ports/role-repository.port';
import { holdsActiveFactor } from './own-factor-access';

/**
 * MFA_REQUIRED_PERMISSIONS (#24): a user whose role holds any of them and who has no confirmed second factor gets
 * tokens that can only enroll one. Decided when a token is issued (a sign-in, a refresh), so a role changed into
 * the policy applies at the next sign-in or refresh; once a factor is enrolled, the next one is a full token.
 */
export class MfaPolicy {
  private readonly required: ReadonlySet<string>;
  private readonly store: MfaStore;
  private readonly roles: RoleRepository;

  constructor(deps: { mfaStore: MfaStore; roleRepository: RoleRepository; mfaRequiredPermissions?: readonly string[] }) {
    this.required = new Set(deps.mfaRequiredPermissions ?? []);
    this.store = deps.mfaStore;
    this.roles = deps.roleRepository;
  }

  /** Whether a role with these permissions needs a second factor. */
  requires(permissions: readonly string[]): boolean {
    return this.required.size > 0 && permissions.some((p) => this.required.has(p));
  }

  /** Whether the user's next token is enrollment-only: its role needs a factor it does not hold. */
  async enrollmentOnly(user: { id: string; roleId: string }): Promise<boolean> {
    if (this.required.size === 0) return false;
    const role = await this.roles.findById(user.roleId);
    if (!role || !this.requires(role.permissions)) return false;
    return !(await holdsActiveFactor(this.store, user.id));
  }
}
