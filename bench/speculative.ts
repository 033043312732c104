// npm run bench:speculative -- [--llama-server PATH] [--runs N] [--max-tokens N] [--draft]
//
// Speculative decoding and Predicted Outputs on the bench model, against plain decoding and
// llama-server (same llama.cpp source, same file). Random weights do not copy their prompt, so the
// rewrite turn is built so its reply is known: the model first writes its greedy reply to a prompt
// holding a ~300-line file; the same prompt is then sent again with that reply, edited in three
// places, as the prediction. Phases (each stream's decode speed: tokens after the first over the
// time from first to last content chunk; medians of --runs):
//   (a) rewrite turn with the prediction; (a') the same turn without it (lookup only, if on);
//   (a″) the same again under an API key of its own (chatserve only), whose lookup pool is empty: the
//        reply drafted from the prompt alone, as a rewrite asked for the first time (in (a′) the pool
//        has seen the same reply in earlier runs and phases);
//   (b) prose; (b′) the same with a wholly wrong prediction (the rewrite's reply: what a wrong one costs);
//   (c) four prose streams at once (their summed speed).
// chatserve runs in this process (no build needed; the npm script sets UV_THREADPOOL_SIZE=1 as
// bin/chatserve.cjs does, which decides its decode threads), with lookup decoding off and on (its default);
// llama-server as a child process, at its defaults and with --spec-type ngram-mod.
// --draft measures draft models instead (chatserve.json's `draft`, llama-server's -md), each server
// plain and with two drafts of the bench model's tokenizer: the bench model itself (every drafted
// token right: what drafting gains at best, and costs) and a tiny random model (bench/draftModels.ts:
// nearly every drafted token wrong), at 3 tokens a draft (llama-server's default) and, for
// chatserve, also at the length its acceptance decides.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {resolveConfig} from "../src/config.js";
import {createLogger} from "../src/logger.js";
import {startServer} from "../src/server.js";
import {projectRoot} from "./args.js";
import {writeSmallDraftModel} from "./draftModels.js";
import {startLlamaServer, takeLlamaServerFlag} from "./llamaServerProcess.js";
import {decodeTokPerS, streamChat, type ChatMessage, type StreamResult} from "./sse.js";
import {sourceFile} from "./sourceFile.js";
import {median} from "./stats.js";

const {binary, rest} = takeLlamaServerFlag(process.argv.slice(2));
const flag = (name: string, fallback: number) => {
    const at = rest.indexOf(name);
    return at < 0 ? fallback : Number(rest[at + 1]);
};
const runs = flag("--runs", 3);
const maxTokens = flag("--max-tokens", 256);
const drafting = rest.includes("--draft");
const modelPath = path.resolve(projectRoot, "../shared/models/bench-random-smollm2-135m-shape-q8_0.gguf");
const contextSize = 8192;

const rewritePrompt: ChatMessage[] = [
    {role: "system", content: "You are a careful code editor. Reply with the whole file and nothing else."},
    {role: "user", content: `Rename every 'step' field to 'stage' in this file:\n\n\`\`\`ts\n${sourceFile()}\n\`\`\``}
];
const prosePrompt: ChatMessage[] = [{role: "user", content: "Write a long story about a lighthouse keeper who finds a map in a bottle."}];

/** The reply with three short spans replaced: a prediction that is right but for a few edits. */
function edited(text: string): string {
    const at = [0.25, 0.5, 0.75].map((share) => Math.floor(text.length * share));
    let result = text;
    for (const position of at.reverse())
        result = `${result.slice(0, position)} EDITED ${result.slice(position + 6)}`;
    return result;
}

/**
 * `keys`: chatserve's API keys, where it has them: `main` for every phase but one, and one more per
 * run for (a″), whose lookup pool (one per key) has never seen the reply it is about to write.
 */
type Target = {name: string, url: string, model: string, prediction: boolean, keys?: {main: string, firstTime: (run: number) => string}, stop(): Promise<void>};

/** chatserve's keys (each has its own lookup pool): the first for the bench's requests, one more per run for the first-time rewrite. */
const benchKeys = Array.from({length: runs + 1}, (_, index) => `bench-key-${index}`);

/** chatserve decoding token by token (lookup decoding is on by default): the baseline every chatserve setting's replies are compared with. */
const plainChatserve = "chatserve --no-lookup-decoding";

/** `draft`: a draft model's file and its fixed draft length (none: adapted), with the name the table gives it. */
type DraftChoice = {file: string, tokens?: number, label: string};

async function chatserve(lookup: boolean, draft?: DraftChoice): Promise<Target> {
    const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-bench-spec-"));
    await fs.symlink(modelPath, path.join(modelsDir, "bench.gguf"));
    if (draft != null) {
        await fs.symlink(draft.file, path.join(modelsDir, "draft.gguf"));
        const settings = {models: {bench: {draft: "draft.gguf", ...(draft.tokens == null ? {} : {draft_tokens: draft.tokens})}}};
        await fs.writeFile(path.join(modelsDir, "chatserve.json"), JSON.stringify(settings));
    }
    const server = await startServer(resolveConfig({
        modelsDir, port: 0, ctxSize: contextSize, parallel: 4, logLevel: "warn", lookupDecoding: lookup, promptCache: false, apiKeys: benchKeys,
        // The draft's link leads out of the folder, to the shared file.
        allowPathsOutsideModels: true
    }), createLogger("warn"));
    const name = `${lookup ? "chatserve" : plainChatserve}${draft == null ? "" : ` draft ${draft.label}`}`;
    return {name, url: server.url, model: "bench", prediction: true, keys: {main: benchKeys[0]!, firstTime: (run) => benchKeys[1 + run]!}, stop: async () => {
        await server.close(1000);
        await fs.rm(modelsDir, {recursive: true, force: true});
    }};
}

async function llamaServer(extra: string[], name: string): Promise<Target> {
    const server = await startLlamaServer(binary!, modelPath, maxTokens, ["-c", String(contextSize * 4), "-np", "4", ...extra]);
    return {name, url: server.target.url, model: "model", prediction: false, stop: server.stop};
}

type Row = {target: string, phase: string, tokPerS: number, tokens: number, accepted?: number, rejected?: number};

async function measure(target: Target): Promise<Row[]> {
    const rows: Row[] = [];
    const once = (messages: ChatMessage[], extra: object = {}, apiKey = target.keys?.main) => streamChat(target.url, target.model, messages, maxTokens, extra, apiKey);
    const record = (phase: string, results: StreamResult[], sum = false) => {
        const speeds = results.map(decodeTokPerS);
        const details = results[0]!.usage as unknown as {completion_tokens_details?: {accepted_prediction_tokens?: number, rejected_prediction_tokens?: number}};
        rows.push({
            target: target.name, phase, tokPerS: sum ? speeds.reduce((a, b) => a + b, 0) : speeds[0]!, tokens: results[0]!.usage?.completion_tokens ?? 0,
            ...(details.completion_tokens_details?.accepted_prediction_tokens == null ? {} : {
                accepted: details.completion_tokens_details.accepted_prediction_tokens, rejected: details.completion_tokens_details.rejected_prediction_tokens
            })
        });
    };
    // The greedy reply to the rewrite prompt (its prompt is cached from here on, for every phase alike).
    const first = await once(rewritePrompt);
    const prediction = edited(first.content);
    const prose = await once(prosePrompt);
    // Each server's greedy replies, compared across its settings at the end: drafts must not change them.
    greedyReplies.set(target.name, `${first.content}\u0000${prose.content}`);
    for (let run = 0; run < runs; run++) {
        if (target.prediction) {
            const predicted = await once(rewritePrompt, {prediction: {type: "content", content: prediction}});
            if (predicted.content !== first.content)
                throw new Error(`${target.name}: the reply with a prediction differs from the one without`);
            record("(a) rewrite, prediction", [predicted]);
        }
        record("(a') rewrite, no prediction", [await once(rewritePrompt)]);
        // The same under a key of its own: its pool is empty, so lookup drafts from the prompt alone, as for a rewrite asked for the first time.
        if (target.keys != null)
            record("(a″) rewrite, no prediction, first time", [await once(rewritePrompt, {}, target.keys.firstTime(run))]);
        record("(b) prose", [await once(prosePrompt)]);
        if (target.prediction) {
            // The rewrite's reply as the prose's prediction: wholly wrong, what it costs against (b) just before.
            const mispredicted = await once(prosePrompt, {prediction: {type: "content", content: first.content}});
            if (mispredicted.content !== prose.content)
                throw new Error(`${target.name}: the prose with a wrong prediction differs from the one without`);
            record("(b′) prose, a wrong prediction", [mispredicted]);
        }
        record("(c) 4 prose streams, summed", await Promise.all([0, 1, 2, 3].map((index) => once([{role: "user", content: `${prosePrompt[0]!.content} (${index})`}]))), true);
    }
    return rows;
}

const targets: Array<() => Promise<Target>> = [() => chatserve(false)];
if (drafting) {
    const small = await writeSmallDraftModel(modelPath);
    const drafts: DraftChoice[] = [{file: modelPath, tokens: 3, label: "itself (3)"}, {file: small, tokens: 3, label: "small (3)"}];
    targets.push(...drafts.map((draft) => () => chatserve(false, draft)), () => chatserve(false, {file: small, label: "small (adapted)"}));
    if (binary != null)
        targets.push(() => llamaServer([], "llama-server"), ...drafts.map((draft) => () =>
            llamaServer(["-md", draft.file, "--spec-type", "draft-simple", "--spec-draft-n-max", String(draft.tokens)], `llama-server -md ${draft.label}`)));
} else {
    targets.push(() => chatserve(true));
    if (binary != null)
        targets.push(() => llamaServer([], "llama-server"), () => llamaServer(["--spec-type", "ngram-mod"], "llama-server --spec-type ngram-mod"));
}
const rows: Row[] = [];
const greedyReplies = new Map<string, string>();
for (const start of targets) {
    const target = await start();
    try {
        rows.push(...await measure(target));
    } finally {
        await target.stop();
    }
}
const phases = [...new Set(rows.map((row) => row.phase))];
const names = [...new Set(rows.map((row) => row.target))];
console.log(`bench model, ${maxTokens} tokens per reply, median of ${runs} runs, decode tokens/s\n`);
console.log(`| phase | ${names.join(" | ")} |`);
console.log(`|---|${names.map(() => "---:").join("|")}|`);
for (const phase of phases)
    console.log(`| ${phase} | ${names.map((name) => {
        const matching = rows.filter((row) => row.phase === phase && row.target === name);
        return matching.length === 0 ? "–" : median(matching.map((row) => row.tokPerS)).toFixed(1);
    }).join(" | ")} |`);
// The rewrite turn's and the prose's greedy replies, byte for byte, against the same server without drafts.
for (const [name, replies] of greedyReplies) {
    const baseline = name.startsWith("chatserve") ? plainChatserve : "llama-server";
    const plain = greedyReplies.get(baseline);
    if (plain != null && name !== baseline)
        console.log(`${name}: greedy replies ${replies === plain ? "identical to" : "DIFFER from"} the same server's without drafts`);
}
for (const phase of phases) {
    const predicted = rows.find((row) => row.phase === phase && row.accepted != null);
    if (predicted != null)
        console.log(`${phase}: ${predicted.accepted} predicted tokens accepted, ${predicted.rejected} rejected, reply ${predicted.tokens} tokens`);
}
await fs.mkdir(path.join(projectRoot, "bench/results"), {recursive: true});
await fs.writeFile(path.join(projectRoot, `bench/results/speculative${drafting ? "-draft" : ""}.json`), JSON.stringify(rows, null, 2));
process.exit(0);
