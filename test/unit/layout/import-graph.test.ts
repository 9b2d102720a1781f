import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The tree's import graph, type-only imports included (a circle of types is still a circle a reader must untangle).
// Relative specifiers only: packages are not ours.

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FOLDERS = ["bin", "bench", "cli", "functions", "lib", "local", "sandbox", "scripts", "test"];
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/g;

function sources(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
  });
}

function resolved(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, base.replace(/\.js$/, ".ts"), join(base, "index.ts")].find(
    (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
  );
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of FOLDERS.flatMap((folder) => sources(join(ROOT, folder)))) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(IMPORT)].flatMap(
      ([, specifier = ""]) => resolved(file, specifier) ?? [],
    );
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one file, or a file importing itself. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(relative(ROOT, member));
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe("the import graph", () => {
  const graph = importGraph();

  it("reads the whole tree", () => {
    expect(graph.size).toBeGreaterThan(300);
    expect([...graph.values()].flat().length).toBeGreaterThan(1000);
  });

  it("has no circle, type-only imports included", () => {
    expect(circles(graph)).toEqual([]);
  });

  it("finds a circle where there is one", () => {
    const [a = "", b = "", c = ""] = [...graph.keys()];
    expect(
      circles(
        new Map([
          [a, [b]],
          [b, [a]],
          [c, [c]],
        ]),
      ),
    ).toEqual([[relative(ROOT, a), relative(ROOT, b)].sort(), [relative(ROOT, c)]]);
  });
});
