import { describeTypeOrmContracts } from './every-contract';

// sql.js: the embedded default's driver where better-sqlite3's native addon did not install.
describeTypeOrmContracts('SQLite (sqljs)', (target) => target.name === 'SQLite (sqljs)');
