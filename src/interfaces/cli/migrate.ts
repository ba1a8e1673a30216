// `npm run migrate`: the migration job of a deployment.
import { runCli } from './cli';

void runCli(['migrate']).then((code) => process.exit(code));
