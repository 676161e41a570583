import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The classic Remix compiler silently replaces a `*.server` module with an empty one in the browser
 * build. So a binding imported from a `*.server` module may only be used inside a route's `loader`
 * or `action` (which the compiler removes from the browser build); any other use would be
 * `undefined` in the browser. Files named `*.server.*` and `entry.server.tsx` run only on the server.
 */
const appDir = path.resolve(import.meta.dirname, "../../app");
const SERVER_ONLY_EXPORTS = new Set(["loader", "action"]);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return files(full);
    return /\.(ts|tsx)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !/\.server\.tsx?$/.test(e.name) ? [full] : [];
  });
}

/** The name of the top-level declaration that contains `node`. */
function topLevelName(node: ts.Node): string | undefined {
  let current: ts.Node = node;
  while (current.parent && !ts.isSourceFile(current.parent)) current = current.parent;
  if (ts.isFunctionDeclaration(current)) return current.name?.text;
  if (ts.isVariableStatement(current)) {
    const declaration = current.declarationList.declarations[0];
    return declaration && ts.isIdentifier(declaration.name) ? declaration.name.text : undefined;
  }
  return undefined;
}

function misuses(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const isRoute = file.startsWith(path.join(appDir, "routes") + path.sep) || file === path.join(appDir, "root.tsx");
  const serverBindings = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || statement.importClause?.isTypeOnly) continue;
    const from = (statement.moduleSpecifier as ts.StringLiteral).text;
    if (!/\.server$/.test(from)) continue;
    const clause = statement.importClause;
    if (clause?.name) serverBindings.add(clause.name.text);
    const named = clause?.namedBindings;
    if (named && ts.isNamedImports(named)) for (const el of named.elements) if (!el.isTypeOnly) serverBindings.add(el.name.text);
    if (named && ts.isNamespaceImport(named)) serverBindings.add(named.name.text);
  }
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && serverBindings.has(node.text) && !ts.isImportSpecifier(node.parent) && !ts.isImportClause(node.parent)) {
      const owner = topLevelName(node);
      if (!isRoute || !owner || !SERVER_ONLY_EXPORTS.has(owner)) {
        found.push(`${path.relative(appDir, file)}: "${node.text}" (from a .server module) used in ${owner ?? "module scope"}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("server-only modules", () => {
  it("are used only in route loaders and actions outside *.server files", () => {
    expect(files(appDir).flatMap(misuses)).toEqual([]);
  });
});
