// `npm run bench:image-burst`: a text stream's time per token alone, then while 8 clients send
// images at once (8 distinct 2048×2048 PNGs, or 8 times the same one), and, for scale, while 8
// clients send text prompts instead. The server runs as its own process (bin/chatserve.cjs, as
// users run it), and each burst comes from a child process of its own, so neither the bench's
// stream reader nor the burst's clients share the server's event loop or this one. Issue #38
// asked that streams keep their speed while images decode; docs/vision.md has the figures.
import {spawn} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import OpenAI from "openai";
import {buildTinyLlavaModel} from "../test/fixtures/gguf/visionModels.js";
import {encodePng, gradient} from "../test/fixtures/images.js";

type Burst = "distinct" | "same" | "text";

if (process.argv[2] === "--burst") {
    // The child: builds its request bodies first, says READY, fires them all on a line of input, says DONE.
    const [url, kind] = [process.argv[3]!, process.argv[4] as Burst];
    const image = (seed: number) => `data:image/png;base64,${encodePng(2048, 2048, gradient(2048, 2048, seed)).toString("base64")}`;
    const bodies = Array.from({length: 8}, (_, index) => JSON.stringify({
        model: "llava", max_tokens: 2, messages: [{role: "user", content: kind === "text"
            ? `question ${index}: ${"tell me about the weather in many places today ".repeat(3)}`
            : [{type: "text", text: "?"}, {type: "image_url", image_url: {url: image(kind === "same" ? 7 : 100 + index + Date.now() % 1000 * 8)}}]}]
    }));
    console.log("READY");
    process.stdin.once("data", async () => {
        const started = performance.now();
        await Promise.all(bodies.map((body) => fetch(`${url}/chat/completions`, {method: "POST", headers: {"content-type": "application/json"}, body}).then((reply) => reply.text())));
        console.log(`DONE ${Math.round(performance.now() - started)}`);
        process.exit(0);
    });
} else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatserve-image-burst-"));
    const pair = await buildTinyLlavaModel(dir);
    fs.renameSync(pair.model, path.join(dir, "llava.gguf"));
    fs.renameSync(pair.mmproj, path.join(dir, "mmproj-llava.gguf"));
    const port = 18_000 + Math.floor(Math.random() * 1000);
    const server = spawn(process.execPath, ["bin/chatserve.cjs", "--models", dir, "--port", String(port), "--parallel", "10", "--ctx-size", "512", "--log-level", "warn"],
        {stdio: ["ignore", "ignore", "inherit"]});
    const url = `http://127.0.0.1:${port}/v1`;
    while (!await fetch(`${url}/models`).then((reply) => reply.ok, () => false))
        await new Promise((resolve) => setTimeout(resolve, 100));
    const client = new OpenAI({baseURL: url, apiKey: "none", maxRetries: 0});
    const msPerToken = async () => {
        const started = performance.now();
        let tokens = 0;
        const stream = await client.chat.completions.create({model: "llava", max_tokens: 400, temperature: 1, seed: 1, stream: true, messages: [{role: "user", content: "count"}]});
        for await (const chunk of stream)
            tokens += chunk.choices[0]?.delta?.content ? 1 : 0;
        return (performance.now() - started) / tokens;
    };
    await msPerToken();
    for (const kind of ["distinct", "same", "text"] as const)
        for (let run = 0; run < 3; run++) {
            const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "imageBurst.ts"), "--burst", url, kind], {stdio: ["pipe", "pipe", "inherit"]});
            const lines = readline.createInterface({input: child.stdout!})[Symbol.asyncIterator]();
            await lines.next();
            const alone = await msPerToken();
            child.stdin!.write("go\n");
            const during = msPerToken();
            const done = (await lines.next()).value as string;
            console.log(`${kind.padEnd(8)} run ${run + 1}: ${alone.toFixed(2)} ms/token alone, ${(await during).toFixed(2)} during the burst (burst ${done.slice(5)} ms)`);
        }
    server.kill();
    fs.rmSync(dir, {recursive: true, force: true});
    process.exit(0);
}
