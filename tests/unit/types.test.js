// The package's declarations against its code: `tsc --noEmit` over the .d.ts files, a consumer
// written against them and the @ts-check'ed sources (tests/types), and every value the
// declarations promise is one the module exports, and the other way round.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const root = new URL('../../', import.meta.url).pathname;

/** Names a declaration file exports as values (classes, functions, constants), not types. */
function declaredValues(path) {
  const file = ts.createSourceFile(path, readFileSync(`${root}${path}`, 'utf8'), ts.ScriptTarget.Latest);
  const names = [];
  for (const node of file.statements) {
    const exported = node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isClassDeclaration(node) || ts.isFunctionDeclaration(node)) names.push(node.name.text);
    if (ts.isVariableStatement(node)) for (const d of node.declarationList.declarations) names.push(d.name.getText(file));
  }
  return [...new Set(names)].sort();
}

describe('type declarations', () => {
  it('compile with a consumer and the checked sources (tsc --noEmit -p tests/types)', () => {
    let output = '';
    try {
      execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '--noEmit', '-p', `${root}tests/types`], {
        encoding: 'utf8',
      });
    } catch (err) {
      output = `${err.stdout}${err.stderr}`;
    }
    expect(output).toBe('');
  }, 120000);

  it('index.d.ts declares exactly what web/src/index.js exports', async () => {
    const module = await import('../../web/src/index.js');
    expect(declaredValues('web/src/index.d.ts')).toEqual(Object.keys(module).sort());
  });

  it('rigscope/node declares what web/src/decoder/node.js exports', async () => {
    const module = await import('../../web/src/decoder/node.js');
    expect(declaredValues('web/src/decoder/node.d.ts')).toEqual(Object.keys(module).sort());
  });

  it('rigscope/viewer declares the element and its pool options', () => {
    const source = readFileSync(`${root}web/src/element/index.js`, 'utf8');
    const exported = [...source.matchAll(/export \{ ([^}]+) \}/g)].flatMap((m) => m[1].split(',').map((n) => n.trim())).sort();
    expect(declaredValues('web/src/element/index.d.ts')).toEqual(exported);
  });
});
