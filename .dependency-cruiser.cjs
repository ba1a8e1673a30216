/**
 * The dependency rule of the hexagon, checked by `make lint`:
 *   domain         → nothing outside src/domain (no package either);
 *   application    → src/domain and itself only;
 *   infrastructure → never the driving adapters in src/interfaces.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing outside itself: no framework, driver or other layer.',
      severity: 'error',
      from: { path: '^src/domain' },
      to: { pathNot: '^src/domain' },
    },
    {
      name: 'application-depends-only-on-domain',
      comment: 'src/application imports only src/domain (and itself): ports are its own interfaces.',
      severity: 'error',
      from: { path: '^src/application' },
      to: { pathNot: '^src/(application|domain)' },
    },
    {
      name: 'infrastructure-does-not-know-interfaces',
      severity: 'error',
      from: { path: '^src/infrastructure' },
      to: { path: '^src/interfaces' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-does-not-import-tests',
      severity: 'error',
      from: { path: '^src' },
      to: { path: '^(test|bench)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
