import { InitialSchema1763700000000 } from './1763700000000-initial-schema';

/** In order of application. Listed explicitly so the compiled service needs no glob loading. */
export const MIGRATIONS = [InitialSchema1763700000000];
