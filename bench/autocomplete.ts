import {parseBenchArgs} from "./args.js";
import {ensureBuilt} from "./build.js";
import {startServerProcess} from "./serverProcess.js";
import {median} from "./stats.js";

/**
 * Autocomplete latency (issue 5): time from request to first streamed text of a short
 * completion, (a) on an idle server and (b) sent the moment the previous keystroke's request is
 * cancelled, as IDE plugins do. With cancellation that frees the sequence at once, (b) ≈ (a).
 *
 *   npm run bench:autocomplete [-- model.gguf --runs N --threads N]
 */
const options = parseBenchArgs(process.argv.slice(2));
ensureBuilt(true);
const server = await startServerProcess(options);
try {
    const fim = ((await (await fetch(`${server.url}/models/${server.modelId}`)).json()) as {capabilities: string[]}).capabilities.includes("fim");
    const body = (index: number, maxTokens: number, signal?: AbortSignal) => fetch(`${server.url}/completions`, {
        method: "POST",
        headers: {"Content-Type": "application/json"},
        signal,
        body: JSON.stringify({
            model: server.modelId, stream: true, temperature: 0, max_tokens: maxTokens,
            prompt: `function add${index}(a, b) {\n    return`, ...(fim ? {suffix: "\n}\n"} : {}),
            stop: ["\n\n", "function", "```", "class "]
        })
    });
    const firstText = async (response: Response) => {
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        let buffered = "";
        for (;;) {
            const {value, done} = await reader.read();
            if (done)
                return reader;
            buffered += decoder.decode(value, {stream: true});
            if (/"text":"[^"]/.test(buffered))
                return reader;
        }
    };

    await (await body(0, 4)).text(); // load the model
    const idle: number[] = [];
    const afterCancel: number[] = [];
    const runs = Math.max(5, options.runs * 3);
    for (let run = 1; run <= runs; run++) {
        let started = performance.now();
        await (await firstText(await body(run, 16))).cancel();
        idle.push(performance.now() - started);

        const previous = new AbortController();
        await firstText(await body(1000 + run, 512, previous.signal));
        previous.abort(); // the next keystroke cancels it …
        started = performance.now(); // … and asks again at once
        await (await firstText(await body(2000 + run, 16))).cancel();
        afterCancel.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const idleMs = median(idle);
    const cancelMs = median(afterCancel);
    process.stdout.write([
        `| autocomplete (${server.modelId}, ${fim ? "suffix / FIM tokens" : "raw prompt"}, ${server.threads} threads, ${runs} runs) | median ms |`,
        "|---|---|",
        `| request → first text, idle server | ${idleMs.toFixed(1)} |`,
        `| request → first text, previous request cancelled just before | ${cancelMs.toFixed(1)} |`,
        `| ratio cancelled ÷ idle | ${(cancelMs / idleMs).toFixed(2)} |`
    ].join("\n") + "\n");
} finally {
    await server.stop();
}
