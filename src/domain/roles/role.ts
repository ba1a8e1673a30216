export interface Role {
  readonly id: string;
  readonly name: string;
  readonly permissions: readonly string[];
}

export const RoleNames = { admin: 'admin', member: 'member' } as const;

/** Which of `wanted` the role does not hold. */
export function missingPermissions(held: readonly string[], wanted: readonly string[]): string[] {
  const have = new Set(held);
  return wanted.filter((p) => !have.has(p));
}
