import { ValidationError } from '../shared/domain-error';
import { comparisonKey } from './comparison-key';

const MAX = 200;

/**
 * The bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): one of them turns the rest of
 * a line around, so a name could show in a list as another (CVE-2021-42574, "Trojan Source"). Joiners and the
 * directional marks stay: scripts and emoji need them.
 */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;
/** Every control character (C0, DEL and C1, such as U+0085, a line break to some readers) and the line and paragraph separators. */
const CONTROLS = /[\p{Cc}\u2028\u2029]/u;
/**
 * What shows as nothing: spaces, format and other invisible characters, those Unicode says to show as nothing (the
 * Hangul fillers among them), and the blank Braille cell. A name must hold one character that is none of these.
 */
const BLANK = /^[\p{Z}\p{C}\p{Default_Ignorable_Code_Point}\u2800\s]*$/u;

/**
 * Whether a name shown to people holds a control character or a bidirectional override (a person's, a passkey's), or
 * half of a surrogate pair (JSON's `"\ud83d"`), which is no character at all: UTF-8 cannot carry it, so MySQL and
 * MariaDB would keep U+FFFD and SQLite the half, and one name would read back two ways.
 */
export function hasHiddenControls(value: string): boolean {
  return CONTROLS.test(value) || BIDI_CONTROLS.test(value) || !value.isWellFormed();
}

/** A person's name: 1 to 200 characters once trimmed, one of them visible, no control characters, no bidirectional override. */
export function parseDisplayName(raw: string, field = 'name'): string {
  const value = raw.trim();
  if (value.length === 0 || [...value].length > MAX || hasHiddenControls(value) || BLANK.test(value)) {
    throw new ValidationError([
      { field, message: `must be 1 to ${MAX} characters, one of them visible, without control characters or bidirectional overrides` },
    ]);
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
