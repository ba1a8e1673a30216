// First: dependencies installed for another node stop the start here, before an addon crashes it.
import '../installed-node-guard';
import { runCli } from './cli';

void runCli(process.argv.slice(2)).then((code) => process.exit(code));
