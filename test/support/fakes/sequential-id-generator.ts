import type { IdGenerator } from '../../../src/application/ports/id-generator.port';

/**
 * UUID-shaped ids (version 7 and variant nibbles set) whose string order is their creation order,
 * like the UUIDv7 generator in production. `namespace` fills the first group, so two generators
 * never hand out the same id; ids of a higher namespace sort after those of a lower one.
 */
export class SequentialIdGenerator implements IdGenerator {
  private counter = 0;
  private readonly prefix: string;

  constructor(namespace = 0) {
    this.prefix = namespace.toString(16).padStart(8, '0');
  }

  next(): string {
    this.counter += 1;
    return `${this.prefix}-0000-7000-8000-${this.counter.toString(16).padStart(12, '0')}`;
  }
}
