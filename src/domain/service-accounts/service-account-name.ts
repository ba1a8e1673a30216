import { ValidationError } from '../shared/domain-error';

const PATTERN = /^[A-Za-z][A-Za-z0-9._:-]{0,63}$/;

/** A service account's name: as a role's, 1 to 64 ASCII letters, digits, `.`, `_`, `:` or `-`, starting with a letter. */
export function parseServiceAccountName(raw: string, field = 'name'): string {
  if (!PATTERN.test(raw)) {
    throw new ValidationError([{ field, message: 'must be 1 to 64 characters of letters, digits, ".", "_", ":" or "-", starting with a letter' }]);
  }
  return raw;
}

/** What uniqueness compares: `Reports` and `reports` are one name. */
export function serviceAccountNameKey(name: string): string {
  return name.toLowerCase();
}

/** At most 500 characters, each whole (no half of a surrogate pair: see hasHiddenControls); blank is no description. */
export function parseDescription(raw: string | undefined | null, field = 'description'): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const trimmed = raw.trim();
  if (trimmed.length === 0) return undefined;
  if ([...trimmed].length > 500) throw new ValidationError([{ field, message: 'must be at most 500 characters' }]);
  if (!trimmed.isWellFormed()) throw new ValidationError([{ field, message: 'must be text: a lone half of a surrogate pair is no character' }]);
  return trimmed;
}
