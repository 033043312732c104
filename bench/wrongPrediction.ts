// npm run bench:wrong-prediction -- [--runs N]
//
// What a wholly wrong prediction costs (Predicted Outputs), the "at most a few percent":
// the bench model's greedy prose, with no prediction and with one that is another text entirely
// (the model's reply to another prompt), taking turns on the same server, the order swapped every
// run, so each pair is seconds apart. Two servers: lookup off (the prediction the only drafter) and
// on (the default, where lookup already drafts the prose: the prediction's wasted drafts then weigh
// against faster decoding). /metrics says how many tokens the prediction drafted and got accepted.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {resolveConfig} from "../src/config.js";
import {createLogger} from "../src/logger.js";
import {startServer} from "../src/server.js";
import {projectRoot} from "./args.js";
import {decodeTokPerS, streamChat, type ChatMessage} from "./sse.js";
import {median} from "./stats.js";

const argv = process.argv.slice(2);
const runs = argv.includes("--runs") ? Number(argv[argv.indexOf("--runs") + 1]) : 6;
const modelPath = path.resolve(projectRoot, "../shared/models/bench-random-smollm2-135m-shape-q8_0.gguf");
const prose: ChatMessage[] = [{role: "user", content: "Write a long story about a lighthouse keeper who finds a map in a bottle."}];
const other: ChatMessage[] = [{role: "user", content: "List the steps to bake bread, in detail."}];

/** The prediction source's drafted and accepted tokens so far. */
async function predictionDrafts(url: string): Promise<[number, number]> {
    const text = await (await fetch(`${url.replace(/\/v1$/, "")}/metrics`)).text();
    const value = (name: string) => Number(text.split("\n").find((line) => line.startsWith(name) && line.includes('source="prediction"'))?.split(" ").at(-1) ?? 0);
    return [value("chatserve:spec_decode_num_draft_tokens_total"), value("chatserve:spec_decode_num_accepted_tokens_total")];
}

console.log(`bench model, greedy prose of 256 tokens, ${runs} runs, without and with a wrong prediction taking turns\n`);
console.log("| server | no prediction (tok/s) | wrong prediction (tok/s) | with ÷ without, median (range) | prediction drafted (accepted) |");
console.log("|---|---:|---:|---:|---:|");
for (const lookup of [false, true]) {
    const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-bench-wrong-"));
    await fs.symlink(modelPath, path.join(modelsDir, "bench.gguf"));
    const server = await startServer(resolveConfig({
        modelsDir, port: 0, ctxSize: 8192, parallel: 4, logLevel: "warn", promptCache: false, lookupDecoding: lookup
    }), createLogger("warn"));
    try {
        const chat = (extra: object = {}) => streamChat(server.url, "bench", prose, 256, extra);
        const wrong = (await streamChat(server.url, "bench", other, 256)).content;
        const plainReply = (await chat()).content;
        const without: number[] = [], withWrong: number[] = [];
        const [draftedBefore, acceptedBefore] = await predictionDrafts(server.url);
        for (let run = 0; run < runs; run++)
            for (const mispredicted of run % 2 === 0 ? [false, true] : [true, false]) {
                const reply = await chat(mispredicted ? {prediction: {type: "content", content: wrong}} : {});
                if (reply.content !== plainReply)
                    throw new Error("a reply differs from the one without a prediction");
                (mispredicted ? withWrong : without).push(decodeTokPerS(reply));
            }
        const [drafted, accepted] = await predictionDrafts(server.url);
        const ratios = withWrong.map((speed, index) => speed / without[index]!);
        console.log(`| chatserve${lookup ? "" : " --no-lookup-decoding"} | ${median(without).toFixed(1)} | ${median(withWrong).toFixed(1)} | ` +
            `${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}) | ${drafted - draftedBefore} (${accepted - acceptedBefore}) over ${runs} replies |`);
    } finally {
        await server.close(1000);
        await fs.rm(modelsDir, {recursive: true, force: true});
    }
}
process.exit(0);
