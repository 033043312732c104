import {spawn, type ChildProcess} from "node:child_process";
import {once} from "node:events";
import {fileURLToPath} from "node:url";

export const projectRoot = fileURLToPath(new URL("../../", import.meta.url));

/** One line of chatserve's request log (src/http/requestLog.ts). */
export type RequestLogLine = {
    reqId: string, method: string, path: string, status: number,
    promptTokens?: number, cachedTokens?: number, completionTokens?: number, error?: string
};

export type ChatserveProcess = {
    /** Its origin, e.g. http://127.0.0.1:41234 (the API is under /v1). */
    origin: string,
    banner: string[],
    /** Request-log lines by request id. */
    requests: Map<string, RequestLogLine>,
    /** Every other line it printed at level warn or above. */
    warnings: string[],
    stop(): Promise<void>
};

const startTimeoutMs = 120_000;

/**
 * Runs chatserve from this checkout's source (`src/`, through tsx: no build step to go stale)
 * as its own process, on a free port, and reads its structured log as it goes.
 */
export async function startChatserve(modelsDir: string, args: readonly string[]): Promise<ChatserveProcess> {
    const entry = "import('./src/cli/main.ts').then((cli) => cli.main(['node', 'chatserve', ...process.argv.slice(1)]))";
    const child = spawn(process.execPath, ["--import", "tsx", "-e", entry, "--", "--models", modelsDir, "--port", "0", ...args], {
        cwd: projectRoot,
        // As bin/chatserve.cjs sets it: one libuv worker (see there).
        env: {...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? "1"},
        stdio: ["ignore", "pipe", "pipe"]
    });
    const banner: string[] = [];
    const requests = new Map<string, RequestLogLine>();
    const warnings: string[] = [];
    let pending = "";
    const read = (chunk: Buffer) => {
        pending += chunk.toString("utf8");
        const lines = pending.split("\n");
        pending = lines.pop()!;
        for (const line of lines.filter((text) => text.trim() !== "")) {
            const entry = parseLogLine(line);
            if (entry == null) banner.push(line);
            else if (entry.event === "request") requests.set(entry.reqId as string, entry as unknown as RequestLogLine);
            else if ((entry.level as number) >= 40) warnings.push(String(entry.msg ?? line));
        }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    const stop = () => stopChild(child);

    const origin = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => fail(new Error(`chatserve was not ready after ${startTimeoutMs / 1000} s`)), startTimeoutMs);
        const check = () => {
            const url = /chatserve is listening on (http:\/\/\S+)\/v1/.exec(banner.join("\n"))?.[1];
            if (url != null && banner.some((line) => line.startsWith("models in "))) {
                clearTimeout(timer);
                child.stdout.off("data", check);
                child.off("exit", onExit);
                resolve(url);
            }
        };
        const onExit = (code: number | null) => fail(new Error(`chatserve exited (code ${code}) before it was ready`));
        const fail = (error: Error) => {
            clearTimeout(timer);
            reject(new Error(`${error.message}:\n${[...banner, ...warnings].join("\n")}`));
        };
        child.stdout.on("data", check);
        child.once("exit", onExit);
    }).catch(async (error: unknown) => {
        await stop();
        throw error;
    });
    return {origin, banner, requests, warnings, stop};
}

function parseLogLine(line: string): Record<string, unknown> | null {
    if (!line.startsWith("{")) return null;
    try {
        return JSON.parse(line) as Record<string, unknown>;
    } catch {
        return null;
    }
}

/** SIGTERM (chatserve finishes in-flight requests), then SIGKILL after 10 s. */
async function stopChild(child: ChildProcess): Promise<void> {
    if (child.exitCode != null || child.signalCode != null) return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
}
