import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { Invitations1763800000000 } from './1763800000000-invitations';

/** In order of application. Listed explicitly so the compiled service needs no glob loading. */
export const MIGRATIONS = [InitialSchema1763700000000, Invitations1763800000000];
