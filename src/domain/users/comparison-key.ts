/**
 * Unicode offers more than one spelling of what reads as the same text: "é" is one code point or
 * "e" followed by a combining accent. Keys that decide uniqueness and lookups compare the canonical
 * composition (NFC) of the lower-cased text, so both spellings are one key. NFC again after
 * lower-casing: a few lower-case mappings leave a sequence that composes further.
 */
export function comparisonKey(text: string): string {
  return text.normalize('NFC').toLowerCase().normalize('NFC');
}

// Control, format (zero-width space and joiners, BOM, bidi controls, soft hyphen), surrogate,
// private-use and unassigned code points, and those Unicode says to show as nothing (fillers,
// variation selectors): text that differs only by them looks identical on screen.
const INVISIBLE = /[\p{C}\p{Default_Ignorable_Code_Point}]/u;

/** Whether the text holds a character a reader could not see or that steers how the rest is shown. */
export function hasInvisibleCharacters(text: string): boolean {
  return INVISIBLE.test(text);
}
