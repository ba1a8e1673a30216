import { ValidationError } from '../shared/domain-error';

const PATTERN = /^[A-Za-z][A-Za-z0-9._:-]{0,63}$/;
/** A name shaped like an id would be ambiguous where a role is named "by name or _id" (invite, PATCH user, filters). */
const ID_SHAPED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A role name: 1 to 64 ASCII letters, digits, `.`, `_`, `:` or `-`, starting with a letter; unique case-insensitively. */
export function parseRoleName(raw: string, field = 'name'): string {
  if (!PATTERN.test(raw) || ID_SHAPED.test(raw)) {
    throw new ValidationError([
      { field, message: 'must be 1 to 64 characters of letters, digits, ".", "_", ":" or "-", starting with a letter, and not shaped like an id' },
    ]);
  }
  return raw;
}

/** What uniqueness compares: `Editors` and `editors` are one name. */
export function roleNameKey(name: string): string {
  return name.toLowerCase();
}
