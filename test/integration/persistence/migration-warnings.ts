import type { DataSource, MigrationInterface } from 'typeorm';

export interface EmittedWarning {
  message: string;
  code?: string;
  name: string;
}

/** Runs one migration's `up` alone on the data source, answering the process warnings it emitted. */
export async function upWithWarnings(dataSource: DataSource, migration: MigrationInterface): Promise<EmittedWarning[]> {
  const warnings: EmittedWarning[] = [];
  const emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation((warning, options) => {
    const { type, code } = (options ?? {}) as { type?: string; code?: string };
    warnings.push({ message: String(warning), code, name: type ?? 'Warning' });
  });
  const runner = dataSource.createQueryRunner();
  try {
    await migration.up(runner);
  } finally {
    await runner.release();
    emitWarning.mockRestore();
  }
  return warnings;
}
