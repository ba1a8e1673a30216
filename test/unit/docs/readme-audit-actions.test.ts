import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AuditActions } from '../../../src/domain/audit/audit-entry';

describe('README, Audit trail', () => {
  it('lists every action the trail records, and no other', () => {
    const readme = readFileSync(path.join(__dirname, '../../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Audit trail'), readme.indexOf('\n## ', readme.indexOf('## Audit trail') + 1));
    const list = section.slice(section.indexOf('The actions:'));
    const listed = [...list.slice(0, list.indexOf('.\n') + 1).matchAll(/`([a-z_]+\.[a-z_]+)`/g)].map((m) => m[1]);
    expect([...listed].sort()).toEqual(Object.values(AuditActions).sort());
  });
});
