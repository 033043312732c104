import {spawn, type ChildProcess} from "node:child_process";
import {once} from "node:events";
import {fileURLToPath} from "node:url";
import {projectRoot} from "./args.js";
import type {FloorKind, FloorRequest} from "./floorChild.js";
import type {Floor, FloorOptions, FloorResult} from "./inProcessFloor.js";

type FloorMessage = {ready?: Pick<Floor, "backend" | "threads" | "loadMs">, result?: unknown, error?: string};

/** The floor's phases, run in the child; `info` is what the report's header needs. */
export type FloorProcess = Pick<Floor, "single" | "long"> & {info: Omit<FloorResult, "runs">, stop(): Promise<void>};

/**
 * Starts an in-process floor (`kind`: node-llama-cpp's own evaluate, or chatserve's engine without
 * HTTP) in its own Node process (`node --import tsx bench/floorChild.ts`),
 * so it starts as cold as the server did and shares nothing with the bench client. It gets the
 * server's libuv pool size too: on Linux bin/chatserve.cjs defaults it to one worker thread.
 * It stays up, idle, and measures one phase when asked: the bench puts each of its phases right
 * after the server's, so the machine's drift over minutes cannot move the HTTP ÷ floor ratios.
 */
export async function startFloorProcess(kind: FloorKind, options: FloorOptions): Promise<FloorProcess> {
    const script = fileURLToPath(new URL("./floorChild.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", script, kind, JSON.stringify(options)], {
        cwd: projectRoot,
        env: process.platform === "linux" ? {...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? "1"} : process.env,
        stdio: ["ignore", "pipe", "pipe", "ipc"]
    });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => output += chunk.toString("utf8"));
    child.stderr!.on("data", (chunk: Buffer) => output += chunk.toString("utf8"));

    const ready = (await nextMessage(child, () => output)).ready;
    if (ready == null)
        throw new Error(`the in-process floor (${kind}) did not start:\n${output}`);
    const ask = async (request: FloorRequest) => {
        child.send(request);
        const message = await nextMessage(child, () => output);
        if (message.error != null || message.result == null)
            throw new Error(`the in-process floor (${kind}) failed: ${message.error ?? output}`);
        return message.result;
    };
    return {
        info: {...ready, decodeThreads: options.decodeThreads},
        single: async (run) => await ask({phase: "single", run}) as Awaited<ReturnType<Floor["single"]>>,
        long: async (run) => await ask({phase: "long", run}) as Awaited<ReturnType<Floor["long"]>>,
        stop: async () => {
            if (child.exitCode != null)
                return;
            const exited = once(child, "exit");
            child.disconnect();
            await exited;
        }
    };
}

/** The child's next message; an exit before it is an error with the child's output. */
async function nextMessage(child: ChildProcess, output: () => string): Promise<FloorMessage> {
    return new Promise((resolve, reject) => {
        const onExit = (code: number | null) => {
            child.off("message", onMessage);
            reject(new Error(`the in-process floor exited (${code}):\n${output()}`));
        };
        const onMessage = (message: FloorMessage) => {
            child.off("exit", onExit);
            resolve(message);
        };
        child.once("message", onMessage);
        child.once("exit", onExit);
    });
}
