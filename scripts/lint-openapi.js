// Writes the OpenAPI document the server serves (GET /docs/json of the app built from src, no build
// step needed) to .cache/openapi.json and lints it with Redocly's recommended rules (redocly.yaml).
// Part of `npm run lint`: a warning fails it as an error does.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const ts = require('typescript');

// The TypeScript sources run as they are, transpiled on require (tsc --noEmit type-checks them in the same lint).
require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(outputText, filename);
};

async function main() {
  const root = path.join(__dirname, '..');
  const { servedOpenApiDocument } = require('./served-openapi.ts');
  const document = await servedOpenApiDocument();
  const file = path.join(root, '.cache', 'openapi.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, document);
  const redocly = path.join(root, 'node_modules', '.bin', 'redocly');
  const lint = spawnSync(redocly, ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--max-problems', '100'], {
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.stdout.write(lint.stdout ?? '');
  process.stderr.write(lint.stderr ?? '');
  if (lint.status !== 0) process.exit(lint.status ?? 1);
  // Redocly exits 0 on warnings; the document is to have none.
  const warnings = /You have (\d+) warnings?/.exec(`${lint.stdout}${lint.stderr}`);
  if (warnings) {
    process.stderr.write(`OpenAPI document: ${warnings[1]} warning(s); fix them or justify an exception in redocly.yaml\n`);
    process.exit(1);
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
