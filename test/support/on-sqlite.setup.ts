import { SQLITE_SERVER } from './test-database';

// The `e2e-sqlite` jest project runs the HTTP suites a third time, every test database a SQLite file:
// the embedded default `make run` starts, where every statement shares one connection.
process.env.TEST_DATABASE_SERVER_URL = SQLITE_SERVER;
