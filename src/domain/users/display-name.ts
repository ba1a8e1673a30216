import { ValidationError } from '../shared/domain-error';
import { comparisonKey } from './comparison-key';

const MAX = 200;

/** A person's name: 1 to 200 characters once trimmed, no control characters. */
export function parseDisplayName(raw: string, field = 'name'): string {
  const value = raw.trim();
  // eslint-disable-next-line no-control-regex
  if (value.length === 0 || [...value].length > MAX || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new ValidationError([{ field, message: `must be 1 to ${MAX} characters without control characters` }]);
  }
  return value;
}

/**
 * The lower-cased, composed (NFC) form of a name that prefix search compares with (stored beside the
 * name, indexed), cut to the name's own length limit: lower-casing may lengthen a few characters (İ → i̇).
 */
export function nameSearchKey(name: string): string {
  return [...comparisonKey(name)].slice(0, MAX).join('');
}
