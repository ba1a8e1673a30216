import { exitOnAbiMismatch } from './installed-node';

/**
 * Imported first by each process entry (api, mailer, cli, migrate), before any module that loads a
 * native addon: dependencies installed for another node stop the start with a message, not a segfault.
 */
exitOnAbiMismatch();
