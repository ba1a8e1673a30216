import type { DataSource, FindOptionsWhere } from 'typeorm';
import type { PermissionFilter, PermissionRepository } from '../../../application/ports/permission-repository.port';
import type { Slice } from '../../../application/shared/pagination';
import type { Permission } from '../../../domain/permissions/permission';
import { type PermissionRecord, PermissionSchema } from './records';

export class TypeOrmPermissionRepository implements PermissionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The whole catalogue, ordered by group then name (what the service caches and pages in memory). */
  async all(): Promise<Permission[]> {
    const records = await this.dataSource.getRepository(PermissionSchema).find({ order: { group: 'ASC', name: 'ASC' } });
    return records.map(({ id, group, name }) => ({ id, group, name }));
  }

  async list(filter: PermissionFilter, { offset, limit }: Slice): Promise<{ items: Permission[]; total: number }> {
    const where: FindOptionsWhere<PermissionRecord> = {};
    if (filter.group !== undefined) where.group = filter.group;
    if (filter.name !== undefined) where.name = filter.name;
    const [items, total] = await this.dataSource.getRepository(PermissionSchema).findAndCount({
      where,
      order: { group: 'ASC', name: 'ASC' },
      skip: offset,
      take: limit,
    });
    return { items: items.map(({ id, group, name }) => ({ id, group, name })), total };
  }
}
