// `npm run migrate`: the migration job of a deployment.
process.argv.splice(2, process.argv.length, 'migrate');
require('./main');
