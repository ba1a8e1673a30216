import { mariadbTarget } from '../integration/persistence/database-targets';
import { describeTypeOrmContracts } from './every-contract';

describeTypeOrmContracts(mariadbTarget.name, (target) => target === mariadbTarget);
