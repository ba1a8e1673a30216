/**
 * A keyed, one-way name for a text that may be a secret (a password typed into a username's field): equal texts get
 * equal names, and without the key no text can be found from its name, not even by trying every likely one.
 */
export interface Pseudonyms {
  of(text: string): string;
}
