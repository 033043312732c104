// Draws the house from src/'s imports: per API the files one request reaches from its route (not counting the
// subsystems behind an interface), file circles, folders importing each other, imports running up the layers, the
// largest files. `node scripts/drawHouse.mjs [tree]` (VERBOSE=1 lists each closure); run on a worktree of an older commit to compare.
import fs from "node:fs";
import path from "node:path";
const root = path.resolve(process.argv[2] ?? ".");
const src = path.join(root, "src");
const files = [];
(function walk(dir) { for (const e of fs.readdirSync(dir, {withFileTypes: true})) { const p = path.join(dir, e.name); if (e.isDirectory()) walk(p); else if (p.endsWith(".ts")) files.push(p); } })(src);
const rel = (p) => path.relative(src, p);
const graph = new Map(), valueGraph = new Map();
for (const f of files) {
  const text = fs.readFileSync(f, "utf8");
  const deps = new Set(), values = new Set();
  for (const m of text.matchAll(/(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)from\s+["'](\.[^"']+)["']/g)) {
    const target = path.normalize(path.join(path.dirname(f), m[4])).replace(/\.js$/, ".ts");
    if (!fs.existsSync(target)) continue;
    deps.add(rel(target));
    // A value import: not `import type`, and not a braces list of type-only names.
    const names = /\{([^}]*)\}/.exec(m[3])?.[1];
    const allTypes = m[2] != null || (names != null && !/^\s*\*|^[A-Za-z_$]/.test(m[3].trim()) && names.split(",").filter((n) => n.trim() !== "").every((n) => n.trim().startsWith("type ")));
    if (!allTypes) values.add(rel(target));
  }
  graph.set(rel(f), deps);
  valueGraph.set(rel(f), values);
}
const folder = (f) => { const parts = f.split("/"); if (parts.length === 1) return ["app.ts", "server.ts"].includes(f) ? "(wiring)" : "(base)"; return parts.length > 2 && ["api", "http"].includes(parts[0]) ? parts.slice(0, 2).join("/") : parts[0]; };
// Layers, top to bottom; a folder not named sits where its first segment does.
const layers = [["cli"], ["(wiring)"], ["pull"], ["api"], ["http"], ["conversation", "chat", "responses", "messages", "completions", "embeddings", "protocol"], ["json-schema", "images", "vision"], ["metrics"], ["models"], ["engine"], ["(base)"]];
const layerOf = (fold) => layers.findIndex((names) => names.includes(fold.split("/")[0]));
// circles (strongly connected components of size > 1)
let index = 0; const idx = new Map(), low = new Map(), stack = [], on = new Set(), sccs = [];
function strong(v) { idx.set(v, index); low.set(v, index++); stack.push(v); on.add(v);
  for (const w of graph.get(v) ?? []) { if (!idx.has(w)) { strong(w); low.set(v, Math.min(low.get(v), low.get(w))); } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w))); }
  if (low.get(v) === idx.get(v)) { const c = []; let w; do { w = stack.pop(); on.delete(w); c.push(w); } while (w !== v); if (c.length > 1) sccs.push(c); } }
for (const v of graph.keys()) if (!idx.has(v)) strong(v);
// folder-level graph and its circles
const fgraph = new Map();
for (const [f, deps] of graph) for (const d of deps) { const a = folder(f), b = folder(d); if (a !== b) { if (!fgraph.has(a)) fgraph.set(a, new Set()); fgraph.get(a).add(b); } }
const reach = (a, b, seen = new Set()) => { if (a === b) return true; if (seen.has(a)) return false; seen.add(a); return [...fgraph.get(a) ?? []].some((n) => reach(n, b, seen)); };
const folderCircles = [];
for (const [a, bs] of fgraph) for (const b of bs) if (reach(b, a)) folderCircles.push(`${a} -> ${b}`);
// one request per API: the route's closure, without the subsystems behind an interface
const behind = (f) => /^(engine|models|json-schema|images|vision|metrics|pull|cli)\//.test(f) || /^chat\/(schema|constrainedSchema|stringFormats|exactJson)/.test(f) || f === "protocol/jsonNesting.ts" || ["logger.ts", "config.ts"].includes(f);
function closure(start, g = graph) { const seen = new Set(); const todo = [start]; while (todo.length) { const f = todo.pop(); if (seen.has(f) || !g.has(f)) continue; seen.add(f); for (const d of g.get(f)) if (!behind(d)) todo.push(d); } return seen; }
const routes = [...graph.keys()].filter((f) => /Route\.ts$/.test(f) && /(chat|responses|messages|completions|embeddings)/i.test(f));
console.log("files read to follow one request (route's imports, engine/models/json-schema/images/metrics behind their interfaces):");
for (const r of routes.sort()) { const c = closure(r); const folders = new Set([...c].map(folder)); const v = closure(r, valueGraph); console.log(`  ${r}: ${c.size} files in ${folders.size} folders; following calls only (no type-only imports): ${v.size} in ${new Set([...v].map(folder)).size}`); if (process.env.VERBOSE) console.log("    " + [...c].sort().map((f) => v.has(f) ? f : f + " (type)").join("\n    ")); }
console.log(`file circles: ${sccs.length}`); for (const c of sccs) console.log("  " + c.join(" <-> "));
console.log(`folder pairs importing each other (both ways, directly or around a loop): ${folderCircles.length}`); for (const c of folderCircles) console.log("  " + c);
const up = [];
for (const [f, deps] of graph) for (const d of deps) { const a = layerOf(folder(f)), b = layerOf(folder(d)); if (a >= 0 && b >= 0 && b < a) up.push(`${f} -> ${d}`); }
console.log(`imports running up the layers (${layers.map((l) => l.join("|")).join(" > ")}): ${up.length}`); for (const u of up) console.log("  " + u);
const sizes = files.map((f) => [rel(f), fs.readFileSync(f, "utf8").split("\n").length - 1]).sort((a, b) => b[1] - a[1]);
console.log(`files: ${files.length}; largest: ${sizes.slice(0, 5).map(([f, n]) => `${f} ${n}`).join(", ")}`);
console.log(`over 200 lines: ${sizes.filter(([, n]) => n > 200).length}`);
