// npm run check:agents: the real coding-agent CLIs, pinned, against a chatserve this script starts.
// See scripts/checkAgents/README.md.
import {access, mkdir, mkdtemp, rm} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {parseArgs} from "node:util";
import {buildAgentModel} from "../../test/fixtures/gguf/agentModel.js";
import {fixtureVocabulary, qwenVocabulary} from "../../test/fixtures/gguf/agentVocabulary.js";
import type {AgentClient} from "./agentClient.js";
import {projectRoot, startChatserve} from "./chatserveProcess.js";
import {claudeCode} from "./clients/claudeCode.js";
import {codex, codexNamespace} from "./clients/codex.js";
import {continueCli} from "./clients/continueCli.js";
import {opencode} from "./clients/opencode.js";
import {qwenCode} from "./clients/qwenCode.js";
import {installClient} from "./installClients.js";
import {preflight} from "./preflight.js";
import {clientReport, passed, summaryTable, type ClientResult} from "./report.js";
import {RequestRecorder} from "./requestRecorder.js";
import {clientFolders, runClient} from "./runClient.js";

const clients: readonly AgentClient[] = [qwenCode, continueCli, opencode, codex, codexNamespace, claudeCode];

const TASK = "List the files in the current directory, then tell me what you found.";
/** Qwen2's tokenizer, from the shared test models: prompts then count what they count on a real Qwen2.5 model. */
const QWEN_TOKENIZER_MODEL = path.join(projectRoot, "..", "shared", "models", "tiny-random-qwen2.5-chatml-tools.gguf");

const {values: options} = parseArgs({
    options: {
        cache: {type: "string", default: process.env.CHATSERVE_AGENTS_CACHE ?? path.join(os.homedir(), ".cache", "chatserve-agents")},
        only: {type: "string"},
        trace: {type: "string"},
        timeout: {type: "string", default: "300"},
        keep: {type: "boolean", default: false},
        vocabulary: {type: "string"},
        help: {type: "boolean", default: false}
    }
});
if (options.help) {
    console.log(`npm run check:agents -- [--only ${clients.map((client) => client.name).join(",")}] [--cache DIR] [--trace DIR] [--timeout SECONDS] [--keep]
  --cache    where the pinned CLIs are installed (default ~/.cache/chatserve-agents, or CHATSERVE_AGENTS_CACHE)
  --trace    write every request and reply the clients exchanged with chatserve into DIR
  --timeout  seconds each client may run (default 300)
  --keep     keep the clients' work and home folders (printed at the end)
  --vocabulary qwen|fixture  the scripted models' tokenizer: Qwen2's (default, from ${QWEN_TOKENIZER_MODEL})
             or the test fixtures' small one (prompts then count 3-4 times the tokens, so the context is 64k)`);
    process.exit(0);
}
const only = options.only?.split(",").map((name) => name.trim());
const unknown = only?.filter((name) => !clients.some((client) => client.name === name)) ?? [];
if (unknown.length > 0) {
    console.error(`unknown client ${unknown.join(", ")}: the clients are ${clients.map((client) => client.name).join(", ")}`);
    process.exit(2);
}
const selected = clients.filter((client) => only == null || only.includes(client.name));
const timeoutMs = Number(options.timeout) * 1000;
if (!(timeoutMs > 0)) {
    console.error(`--timeout is a number of seconds, not ${options.timeout}`);
    process.exit(2);
}
const vocabularyName = options.vocabulary ?? (await access(QWEN_TOKENIZER_MODEL).then(() => "qwen", () => "fixture"));
if (vocabularyName !== "qwen" && vocabularyName !== "fixture") {
    console.error(`--vocabulary is qwen or fixture, not ${vocabularyName}`);
    process.exit(2);
}
const vocabulary = vocabularyName === "qwen" ? (pieces: readonly string[]) => qwenVocabulary(QWEN_TOKENIZER_MODEL, pieces) : fixtureVocabulary;
// chatserve's defaults, as a new user gets them (up to 32k of the model's 64k trained context);
// with the fixture vocabulary, Qwen Code's prompt alone counts ~54k tokens.
const chatserveArgs = ["--log-level", "info", ...(vocabularyName === "qwen" ? [] : ["--ctx-size", "65536"])];

// Not under /tmp: Codex refuses to set up its helper binaries in a home there (and says so).
await mkdir(path.join(options.cache, "runs"), {recursive: true});
const root = await mkdtemp(path.join(options.cache, "runs", "run-"));
const modelsDir = path.join(root, "models");
const say = (line: string) => console.log(`check:agents: ${line}`);
const results: ClientResult[] = [];
try {
    const bins = new Map<AgentClient, string>();
    for (const client of selected)
        bins.set(client, await installClient(options.cache, client, say));

    // Each client gets a model of its own, scripted to call one of that client's tools.
    const folders = new Map<AgentClient, {home: string, workDir: string}>();
    for (const client of selected) {
        const dirs = await clientFolders(root, client);
        folders.set(client, dirs);
        await buildAgentModel(path.join(modelsDir, `${modelId(client)}.gguf`), client.script(dirs.workDir), vocabulary);
    }

    say(`starting chatserve ${chatserveArgs.join(" ")} on ${selected.length} scripted models (${vocabularyName} vocabulary)`);
    const chatserve = await startChatserve(modelsDir, chatserveArgs);
    say(`chatserve says:\n  ${chatserve.banner.join("\n  ")}`);
    say("each model's weights are scripted: it calls one of its client's tools while no tool result is in the prompt, then answers " +
        "(scripts/checkAgents/README.md, \"How the tool call is made to happen\")");
    const recorder = await RequestRecorder.start(chatserve.origin, options.trace ?? null);
    try {
        for (const client of selected) {
            const broken = await preflight(chatserve.origin, modelId(client), client.script(folders.get(client)!.workDir));
            if (broken != null) throw new Error(`the scripted model for ${client.name} does not follow its script, so no client was run: ${broken}`);
        }
        for (const client of selected) {
            say(`running ${client.name} ${client.version}`);
            recorder.client = client.name;
            const {home, workDir} = folders.get(client)!;
            const outcome = await runClient(client, {
                bin: bins.get(client)!, home, workDir, baseUrl: `${recorder.origin}/v1`, model: modelId(client), apiKey: "sk-check-agents", task: TASK
            }, recorder.origin, timeoutMs);
            results.push({
                client, outcome, script: client.script(workDir),
                exchanges: recorder.exchanges.filter((exchange) => exchange.client === client.name),
                outbound: recorder.outbound.filter((attempt) => attempt.client === client.name),
                requestLog: chatserve.requests
            });
        }
    } finally {
        await recorder.close();
        await chatserve.stop();
    }
    if (chatserve.warnings.length > 0)
        say(`chatserve logged:\n  ${[...new Set(chatserve.warnings)].join("\n  ")}`);
} finally {
    if (options.keep) say(`work and home folders kept in ${root}`);
    else await rm(root, {recursive: true, force: true});
}

console.log();
for (const result of results) console.log(`${clientReport(result)}\n`);
console.log(summaryTable(results));
process.exitCode = results.length === selected.length && results.every(passed) ? 0 : 1;

function modelId(client: AgentClient): string {
    return `scripted-agent-${client.name}`;
}
