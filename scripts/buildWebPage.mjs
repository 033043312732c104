// Builds the chat page (web/) into dist/web/: one JS and one CSS bundle and index.html, all served
// by chatserve itself (src/api/web-page/), so the page needs no network beyond its own server.
// Runs in `npm run build` (and so at `npm install`, through `prepare`).
import {build} from "esbuild";
import {copyFile, mkdir, stat} from "node:fs/promises";
import {fileURLToPath} from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = `${root}dist/web`;
await mkdir(out, {recursive: true});
await build({
    entryPoints: {app: `${root}web/src/main.tsx`},
    bundle: true,
    format: "esm",
    target: "es2022",
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    outdir: out,
    legalComments: "linked",
    logLevel: "warning"
});
await build({entryPoints: {app: `${root}web/styles.css`}, bundle: true, minify: true, outdir: out, logLevel: "warning"});
await copyFile(`${root}web/index.html`, `${out}/index.html`);
const sizes = await Promise.all(["app.js", "app.css"].map(async (file) => `${file} ${Math.round((await stat(`${out}/${file}`)).size / 1024)} KB`));
console.log(`chat page: ${sizes.join(", ")}`);
