// `npm run check:rerank-clients`: chatserve's reranker through the JavaScript clients users point
// at it (README.md here says which, and why these). Not part of `npm test`: it installs ~150 MB of
// client libraries the project does not otherwise need.
import os from "node:os";
import path from "node:path";
import {parseArgs} from "node:util";
import {buildTinyRerankerModel} from "../../test/fixtures/gguf/rerankerModel.js";
import {startTestServer} from "../../test/e2e/support/testServer.js";
import {drivers, type RerankCase} from "./drivers.js";
import {installClients} from "./packages.js";

const {values: options} = parseArgs({options: {
    model: {type: "string"},
    cache: {type: "string", default: process.env.CHATSERVE_RERANK_CLIENTS_CACHE ?? path.join(os.homedir(), ".cache", "chatserve-rerank-clients")},
    help: {type: "boolean", default: false}
}});
if (options.help) {
    console.log("npm run check:rerank-clients -- [--model reranker.gguf] [--cache DIR]\n" +
        "  --model  a reranker GGUF (pooling rank) to serve; default: the tests' tiny random BERT reranker\n" +
        "  --cache  where the pinned client packages are installed (default ~/.cache/chatserve-rerank-clients)");
    process.exit(0);
}

const load = await installClients(options.cache, (line) => console.log(line));
const file = options.model != null ? path.resolve(options.model) : await buildTinyRerankerModel();
const model = path.basename(file, ".gguf");
const key = "check-rerank-clients";
// With a key, as a server reachable by others runs: every client must send it.
const server = await startTestServer({[model]: file}, {apiKeys: [key], ctxSize: 2048});
const origin = server.url.replace(/\/v1$/, "");
console.log(`chatserve on ${origin}, serving ${file} as '${model}'`);

const query = "What is the capital of France?";
const documents = [
    "Berlin is the capital of Germany.",
    "Paris is the capital and largest city of France.",
    "The Eiffel Tower is in Paris.",
    "Bananas are rich in potassium.",
    "France's capital has been Paris since 987, with few interruptions."
];
const topN = 3;

let failed = 0;
try {
    const raw = await fetch(`${origin}/v1/rerank`, {
        method: "POST", headers: {"Content-Type": "application/json", Authorization: `Bearer ${key}`},
        body: JSON.stringify({model, query, documents, top_n: topN})
    });
    if (raw.status !== 200)
        throw new Error(`/v1/rerank answered ${raw.status}: ${await raw.text()}`);
    const check: RerankCase = {origin, key, model, query, documents, topN, expected: (await raw.json() as RerankCase & {results: RerankCase["expected"]}).results};
    console.log(`/v1/rerank (raw): ${check.expected.map((result) => `#${result.index} ${result.relevance_score.toFixed(4)}`).join(", ")}\n`);
    for (const driver of drivers) {
        try {
            console.log(`PASS  ${driver.name}\n      ${await driver.run(load, check)}`);
        } catch (error) {
            failed++;
            console.log(`FAIL  ${driver.name}\n      ${error instanceof Error ? error.message : String(error)}`);
        }
    }
} finally {
    await server.stop();
}
console.log(`\n${drivers.length - failed} of ${drivers.length} passed`);
process.exit(failed === 0 ? 0 : 1);
