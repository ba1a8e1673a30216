/** Identifiers that sort by creation time (UUIDv7). */
export interface IdGenerator {
  next(): string;
}
