import { v7 } from 'uuid';
import type { IdGenerator } from '../../application/ports/id-generator.port';

/** UUIDv7: time-ordered, so primary keys insert in order and sort by creation on every database. */
export class UuidV7IdGenerator implements IdGenerator {
  next(): string {
    return v7();
  }
}
