import {parseBenchArgs} from "./args.js";
import {ensureBuilt} from "./build.js";
import {startServerProcess} from "./serverProcess.js";
import {median} from "./stats.js";

/**
 * Autocomplete latency (issue 5): time from request to first streamed text of a short
 * completion, (a) on an idle server and (b) sent the moment the previous keystroke's request is
 * cancelled, as IDE plugins do. With cancellation that frees the sequence at once, (b) ≈ (a).
 * Then the same two in a file of ~1,000 tokens that no sequence has seen before the keystroke's
 * request: (c) the keystroke after one that was answered, (d) the keystroke sent the moment the one
 * before it is cancelled, while the file is cached only on the cancelled request's sequence.
 *
 *   npm run bench:autocomplete [-- model.gguf --runs N --threads N]
 */
const options = parseBenchArgs(process.argv.slice(2));
ensureBuilt(true);
const server = await startServerProcess(options);
try {
    const fim = ((await (await fetch(`${server.url}/models/${server.modelId}`)).json()) as {capabilities: string[]}).capabilities.includes("fim");
    const complete = (prompt: string, maxTokens: number, signal?: AbortSignal) => fetch(`${server.url}/completions`, {
        method: "POST",
        headers: {"Content-Type": "application/json"},
        signal,
        body: JSON.stringify({
            model: server.modelId, stream: true, temperature: 0, max_tokens: maxTokens,
            prompt, ...(fim ? {suffix: "\n}\n"} : {}),
            stop: ["\n\n", "function", "```", "class "]
        })
    });
    const body = (index: number, maxTokens: number, signal?: AbortSignal) => complete(`function add${index}(a, b) {\n    return`, maxTokens, signal);
    /** A source file of ~1,000 tokens, new to the server, with the cursor at its end after `typed`. */
    const file = (index: number, typed: string) => `// file ${index}\n` +
        Array.from({length: 60}, (_, line) => `export const value${line} = compute(${line}, "item ${line}");`).join("\n") + `\nfunction f${index}() {\n    ${typed}`;
    const keystrokeAfter = async (index: number, cancelled: boolean): Promise<number> => {
        const previous = new AbortController();
        const reader = await firstText(await complete(file(index, "ret"), cancelled ? 512 : 4, previous.signal));
        if (cancelled)
            previous.abort();
        else
            while (!(await reader.read()).done); // answered: its sequence is free again
        const started = performance.now();
        await (await firstText(await complete(file(index, "retu"), 16))).cancel();
        return performance.now() - started;
    };
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
    const fileAnswered: number[] = [];
    const fileCancelled: number[] = [];
    for (let run = 1; run <= runs; run++) {
        fileAnswered.push(await keystrokeAfter(2 * run, false));
        await new Promise((resolve) => setTimeout(resolve, 100));
        fileCancelled.push(await keystrokeAfter(2 * run + 1, true));
        await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const idleMs = median(idle);
    const cancelMs = median(afterCancel);
    process.stdout.write([
        `| autocomplete (${server.modelId}, ${fim ? "suffix / FIM tokens" : "raw prompt"}, ${server.threads} threads, ${runs} runs) | median ms |`,
        "|---|---|",
        `| request → first text, idle server | ${idleMs.toFixed(1)} |`,
        `| request → first text, previous request cancelled just before | ${cancelMs.toFixed(1)} |`,
        `| ratio cancelled ÷ idle | ${(cancelMs / idleMs).toFixed(2)} |`,
        `| next keystroke in a ~1,000-token file, the one before answered | ${median(fileAnswered).toFixed(1)} |`,
        `| next keystroke in a ~1,000-token file, the one before cancelled just before | ${median(fileCancelled).toFixed(1)} |`,
        `| ratio cancelled ÷ answered, in the file | ${(median(fileCancelled) / median(fileAnswered)).toFixed(2)} |`
    ].join("\n") + "\n");
} finally {
    await server.stop();
}
