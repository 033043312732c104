import {spawn, type ChildProcess} from "node:child_process";
import {existsSync} from "node:fs";
import {createServer} from "node:net";
import {setTimeout as sleep} from "node:timers/promises";

/** llama-server built from the same llama.cpp source (docs/performance.md says how); tests comparing with it skip without it. */
export const llamaServerPath = process.env.LLAMA_SERVER ?? "/tmp/llama-build/bin/llama-server";
export const hasLlamaServer = existsSync(llamaServerPath);

export type LlamaServer = {url: string, post(path: string, body: unknown): Promise<{status: number, body: any}>, stop(): Promise<void>};

/** llama-server on `model` with `args`, on a free port, once its /health answers 200. */
export async function startLlamaServer(model: string, args: readonly string[]): Promise<LlamaServer> {
    const port = await freePort();
    const child: ChildProcess = spawn(llamaServerPath, ["-m", model, "--port", String(port), "--host", "127.0.0.1", "-t", "2", ...args], {stdio: "ignore"});
    const url = `http://127.0.0.1:${port}`;
    for (let attempt = 0; ; attempt++) {
        const healthy = await fetch(`${url}/health`).then((res) => res.status === 200, () => false);
        if (healthy)
            break;
        if (attempt > 300 || child.exitCode != null) {
            child.kill();
            throw new Error(`llama-server did not start on ${model}`);
        }
        await sleep(100);
    }
    return {
        url,
        post: async (path, body) => {
            const res = await fetch(`${url}${path}`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
            return {status: res.status, body: await res.json()};
        },
        stop: async () => {
            const exited = new Promise((resolve) => child.once("exit", resolve));
            child.kill();
            await exited;
        }
    };
}

async function freePort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const {port} = probe.address() as {port: number};
    await new Promise((resolve) => probe.close(resolve));
    return port;
}
