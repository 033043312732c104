// `npm run bench:templates -- --llama-server PATH [templates dir or .jinja files…]`: the prompt chatserve
// evaluates for each model family's official chat template, against llama-server --jinja built from
// the same llama.cpp source, request for request (docs/templates.md). Each template is written into
// a tiny random-weight GGUF whose vocabulary has the template's markers as tokens of their own; both
// servers load that file. For each request llama-server's /apply-template gives its prompt and
// /tokenize its tokens (with BOS, specials read); chatserve's tokens are its usage.prompt_tokens for
// the same request through its OpenAI route, and its text is printed beside llama-server's where the
// counts differ. Also printed: the call syntax chatserve reads from the template.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {writeFamilyModel} from "../test/fixtures/templates/familyTemplates.js";
import {resolveConfig} from "../src/config.js";
import {createLogger} from "../src/logger.js";
import {startServer} from "../src/server.js";
import {startLlamaServer, takeLlamaServerFlag} from "./llamaServerProcess.js";
import {parityRequests} from "./templateRequests.js";

const {binary, rest} = takeLlamaServerFlag(process.argv.slice(2));
if (binary == null) {
    console.error("usage: npm run bench:templates -- --llama-server PATH [templates dir or .jinja files…]");
    process.exit(2);
}
const sources = rest.length > 0 ? rest : [path.resolve("node_modules/node-llama-cpp/llama/llama.cpp/models/templates")];
const files = sources.flatMap((source) => fs.statSync(source).isDirectory()
    ? fs.readdirSync(source).filter((name) => name.endsWith(".jinja")).sort().map((name) => path.join(source, name))
    : [source]);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatserve-templates-"));
const summary: Array<{template: string, matched: number, total: number, notes: string[]}> = [];
for (const file of files) {
    const name = path.basename(file, ".jinja");
    const source = fs.readFileSync(file, "utf8");
    const id = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 60);
    const modelsDir = fs.mkdtempSync(path.join(dir, "models-"));
    const model = await writeFamilyModel(modelsDir, id, source);
    const notes: string[] = [];
    let matched = 0;
    const llama = await startLlamaServer(binary, model, 1, ["--jinja", "-c", "8192", "-np", "1", "-t", "1"]).catch((error: Error) => {
        notes.push(`llama-server did not start: ${error.message.split("\n").filter((line) => /error|fail/i.test(line)).slice(0, 2).join(" / ")}`);
        return null;
    });
    const chatserve = await startServer(resolveConfig({modelsDir, port: 0, threads: 1, parallel: 1, ctxSize: 8192, logLevel: "silent"}), createLogger("silent"));
    const base = llama?.target.url.replace(/\/v1$/, "");
    for (const request of parityRequests) {
        const body = {model: path.basename(model, ".gguf"), max_tokens: 1, temperature: 0, ...request.body};
        const ours = await fetch(`${chatserve.url}/chat/completions`, {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body)});
        const ourReply = await ours.json() as {usage?: {prompt_tokens: number}, error?: {message: string}};
        if (llama == null) {
            notes.push(`${request.name}: chatserve ${ours.status} ${ourReply.usage?.prompt_tokens ?? ourReply.error?.message.slice(0, 80)}`);
            continue;
        }
        const applied = await fetch(`${base}/apply-template`, {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body)});
        const prompt = applied.ok ? (await applied.json() as {prompt: string}).prompt : null;
        const theirCount = prompt == null ? null : (await (await fetch(`${base}/tokenize`, {
            method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify({content: prompt, add_special: true, parse_special: true})
        })).json() as {tokens: number[]}).tokens.length;
        const ourCount = ourReply.usage?.prompt_tokens ?? null;
        if (ourCount != null && ourCount === theirCount)
            matched++;
        else if (prompt == null && ourCount == null)
            matched++;
        else
            notes.push(`${request.name}: chatserve ${ourCount ?? `${ours.status} ${ourReply.error?.message.slice(0, 100)}`}, llama-server ${theirCount ?? `${applied.status} ${(await applied.text()).slice(0, 100)}`}`);
    }
    await chatserve.close(1000);
    await llama?.stop();
    summary.push({template: name, matched, total: parityRequests.length, notes});
    console.log(`${name}: ${matched}/${parityRequests.length}${notes.length > 0 ? `\n    ${notes.join("\n    ")}` : ""}`);
}
const all = summary.reduce((sum, row) => sum + row.matched, 0);
const total = summary.reduce((sum, row) => sum + row.total, 0);
console.log(`\n${all} of ${total} prompts match llama-server's tokens, over ${summary.length} templates`);
fs.rmSync(dir, {recursive: true, force: true});
process.exit(0);
