// `node --import tsx bench/captureTemplatePrompts.ts --llama-server PATH`: writes
// test/fixtures/templates/llamaServerPrompts.json, the prompt llama-server --jinja renders for each
// family template in test/fixtures/templates/ and each request of bench/templateRequests.ts (its
// /apply-template), on the same tiny model bench:templates uses. test/unit/engine/template/
// llamaServerPrompts.test.ts pins chatserve's rendering to them, so CI checks parity without a
// llama-server. Rerun after moving node-llama-cpp (and so llama.cpp) to a new version.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {familyTemplate, familyTemplateNames, writeFamilyModel} from "../test/fixtures/templates/familyTemplates.js";
import {startLlamaServer, takeLlamaServerFlag} from "./llamaServerProcess.js";
import {parityRequests} from "./templateRequests.js";

const {binary} = takeLlamaServerFlag(process.argv.slice(2));
if (binary == null) {
    console.error("usage: node --import tsx bench/captureTemplatePrompts.ts --llama-server PATH");
    process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatserve-capture-"));
const captured: Array<{template: string, request: string, prompt: string}> = [];
for (const name of familyTemplateNames) {
    const model = await writeFamilyModel(dir, name.toLowerCase().replace(/[^a-z0-9]+/g, "-"), familyTemplate(name));
    const llama = await startLlamaServer(binary, model, 1, ["--jinja", "-c", "8192", "-np", "1", "-t", "1"]);
    const base = llama.target.url.replace(/\/v1$/, "");
    for (const request of parityRequests) {
        const reply = await fetch(`${base}/apply-template`, {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify({model: "m", ...request.body})});
        if (reply.ok)
            captured.push({template: name, request: request.name, prompt: (await reply.json() as {prompt: string}).prompt});
    }
    await llama.stop();
}
const out = new URL("../test/fixtures/templates/llamaServerPrompts.json", import.meta.url);
fs.writeFileSync(out, `${JSON.stringify({capturedOn: new Date().toISOString().slice(0, 10), prompts: captured}, null, 1)}\n`);
console.log(`${captured.length} prompts written to ${out.pathname}`);
fs.rmSync(dir, {recursive: true, force: true});
process.exit(0);
