import {spawn} from "node:child_process";
import {once} from "node:events";
import {fileURLToPath} from "node:url";
import {projectRoot} from "./args.js";
import type {FloorOptions, FloorResult} from "./inProcessFloor.js";

/**
 * Runs the in-process floor in a fresh Node process (`node --import tsx bench/inProcessFloor.ts`),
 * so it starts as cold as the server did and shares nothing with the bench client. It gets the
 * server's libuv pool size too: on Linux bin/chatserve.cjs defaults it to one worker thread.
 */
export async function runFloorProcess(options: FloorOptions): Promise<FloorResult> {
    const script = fileURLToPath(new URL("./inProcessFloor.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", script, JSON.stringify(options)], {
        cwd: projectRoot,
        env: process.platform === "linux" ? {...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? "1"} : process.env,
        stdio: ["ignore", "pipe", "pipe"]
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => stdout += chunk.toString("utf8"));
    child.stderr.on("data", (chunk: Buffer) => stderr += chunk.toString("utf8"));
    const [code] = await once(child, "exit") as [number | null];

    const line = stdout.split("\n").find((text) => text.startsWith("FLOOR_RESULT "));
    if (code !== 0 || line == null)
        throw new Error(`the in-process floor failed (exit ${code}):\n${stderr}${stdout}`);
    return JSON.parse(line.slice("FLOOR_RESULT ".length)) as FloorResult;
}
