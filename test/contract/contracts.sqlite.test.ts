import { describeTypeOrmContracts } from './every-contract';

// better-sqlite3 where it installed (the embedded default's driver then); sql.js has a file of its own.
describeTypeOrmContracts('SQLite (better-sqlite3)', (target) => target.name === 'SQLite (better-sqlite3)');
