import { mysql8Target } from '../integration/persistence/database-targets';
import { describeTypeOrmContracts } from './every-contract';

describeTypeOrmContracts(mysql8Target.name, (target) => target === mysql8Target);
