import { mysqlServerUrl } from './test-database';

// The `e2e-mysql` jest project runs the HTTP suites a second time, every test database on MySQL 8.
process.env.TEST_DATABASE_SERVER_URL = mysqlServerUrl();
