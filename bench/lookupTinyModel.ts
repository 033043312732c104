// npm run bench:lookup-tiny -- [--runs N]
//
// Lookup decoding on a model whose step is nearly all overhead: the stories model (../shared, 260K
// parameters, a real trained model, about 1,500 tokens/s on 2 cores). Its text repeats itself
// partly, as trained prose does, so lookup drafts and is often wrong; a drafted token costs about
// 0.45 of its 0.65 ms step (a row's attention over the context), a drafted pass a quarter of a step
// more (speculation/draftCostEstimate.ts), and lookup's per-step bookkeeping is a visible share of
// such a step. Two servers, lookup off and on, take turns, the order swapped every run; 400 tokens a
// reply, one stream, at temperatures 1, 0.7 and 0 (every run its own seed).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {resolveConfig} from "../src/config.js";
import {createLogger} from "../src/logger.js";
import {startServer} from "../src/server.js";
import {projectRoot} from "./args.js";
import {decodeTokPerS, streamChat} from "./sse.js";
import {median} from "./stats.js";

const argv = process.argv.slice(2);
const runs = argv.includes("--runs") ? Number(argv[argv.indexOf("--runs") + 1]) : 6;
const modelPath = path.resolve(projectRoot, "../shared/models/stories260K.gguf");

async function start(lookup: boolean) {
    const modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-bench-tiny-"));
    await fs.symlink(modelPath, path.join(modelsDir, "stories.gguf"));
    const server = await startServer(resolveConfig({
        modelsDir, port: 0, ctxSize: 2048, parallel: 1, logLevel: "warn", promptCache: false, lookupDecoding: lookup
    }), createLogger("warn"));
    return {server, modelsDir};
}

/** The server's lookup and pool tokens drafted and accepted so far. */
async function draftCounts(url: string): Promise<[number, number]> {
    const text = await (await fetch(`${url.replace(/\/v1$/, "")}/metrics`)).text();
    const sum = (name: string) => text.split("\n").filter((line) => line.startsWith(name) && /source="(lookup|pool)"/.test(line))
        .reduce((total, line) => total + Number(line.split(" ").at(-1)), 0);
    return [sum("chatserve:spec_decode_num_draft_tokens_total"), sum("chatserve:spec_decode_num_accepted_tokens_total")];
}

const servers = {off: await start(false), on: await start(true)};
console.log(`stories model, 400 tokens a reply, ${runs} runs, lookup off and on taking turns\n`);
console.log("| temperature | lookup off (tok/s) | lookup on (tok/s) | on ÷ off, median (range) | drafted (accepted) |");
console.log("|---:|---:|---:|---:|---:|");
try {
    for (const temperature of [1, 0.7, 0]) {
        const speeds = {off: [] as number[], on: [] as number[]};
        const [draftedBefore, acceptedBefore] = await draftCounts(servers.on.server.url);
        for (let run = 0; run < runs; run++)
            for (const name of run % 2 === 0 ? ["off", "on"] as const : ["on", "off"] as const) {
                const reply = await streamChat(servers[name].server.url, "stories", [{role: "user", content: "Once upon a time"}], 400, {temperature, seed: 100 + run});
                speeds[name].push(decodeTokPerS(reply));
            }
        const [drafted, accepted] = await draftCounts(servers.on.server.url);
        const ratios = speeds.on.map((speed, index) => speed / speeds.off[index]!);
        console.log(`| ${temperature} | ${median(speeds.off).toFixed(0)} | ${median(speeds.on).toFixed(0)} | ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ${drafted - draftedBefore} (${accepted - acceptedBefore}) |`);
    }
} finally {
    for (const {server, modelsDir} of Object.values(servers)) {
        await server.close(1000);
        await fs.rm(modelsDir, {recursive: true, force: true});
    }
}
process.exit(0);
