// The import graph's layers, lowest first (docs/ARCHITECTURE.md):
//   decoder → core → families → three → element → app,   and the CLI beside app.
// A module may import its own layer and the layers below it, never one above, and no import
// may close a cycle. `npm test` runs this (tests/unit/architecture.test.js).
const layer = (name, allowed) => ({
  name: `${name}-imports-only-below`,
  comment: `web/src/${name} may import only ${allowed.join(', ')}`,
  severity: 'error',
  from: { path: `^web/src/${name}/` },
  to: { path: '^web/', pathNot: allowed.map((a) => (a.startsWith('web/') ? `^${a}` : `^web/src/${a}/`)) },
});

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    layer('decoder', ['decoder']),
    layer('core', ['core']),
    layer('families', ['core', 'families']),
    layer('three', ['decoder', 'core', 'families', 'three']),
    layer('element', ['decoder', 'core', 'families', 'three', 'element']),
    layer('app', ['decoder', 'core', 'families', 'three', 'element', 'app']),
    {
      name: 'cli-never-imports-pages',
      severity: 'error',
      from: { path: '^web/cli/' },
      to: { path: '^web/src/(app|element)/' },
    },
    {
      name: 'library-never-imports-cli',
      severity: 'error',
      from: { path: '^web/src/' },
      to: { path: '^web/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^node_modules|^build/)' },
    tsPreCompilationDeps: false,
    combinedDependencies: true,
  },
};
