import net from "node:net";
import {performance} from "node:perf_hooks";
import type {HttpTarget} from "./httpStreams.js";
import {phasePrompts} from "./prompts.js";
import {perSecond} from "./stats.js";

/**
 * A streamed request read by the least a client can do: HTTP/1.1 over a bare socket, the bytes
 * kept, nothing parsed until the socket ends. fetch and a JSON.parse per event cost the bench's
 * usual client CPU on the same two cores as the server; this client shows what the server's
 * events cost without most of that. End to end only: it timestamps no event.
 */
export async function leanStream(target: HttpTarget, run: number): Promise<{completionTokens: number, endToEndTokPerS: number}> {
    const url = new URL(`${target.url}/chat/completions`);
    const body = JSON.stringify({
        model: target.model, messages: [{role: "user", content: phasePrompts.lean(run)}], max_tokens: target.maxTokens, temperature: 0,
        stream: true, stream_options: {include_usage: true}
    });
    const startedAt = performance.now();
    const text = await new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        const socket = net.connect(Number(url.port), url.hostname, () => socket.write(
            `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
            `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
        ));
        socket.on("data", (bytes: Buffer) => chunks.push(bytes));
        socket.once("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
        socket.once("error", reject);
    });
    const endedAt = performance.now();
    if (!text.startsWith("HTTP/1.1 200"))
        throw new Error(`from /chat/completions: ${text.slice(0, 300)}`);
    // The usage chunk comes last, before [DONE].
    const completionTokens = Number(/"completion_tokens":(\d+)/.exec(text.slice(-1000))?.[1] ?? Number.NaN);
    return {completionTokens, endToEndTokPerS: perSecond(completionTokens, endedAt - startedAt)};
}
