import { describeFakeContracts } from './every-contract';

describeFakeContracts();
