import {spawn, spawnSync} from "node:child_process";
import {once} from "node:events";
import {fileURLToPath} from "node:url";
import {projectRoot} from "./args.js";
import type {HttpTarget} from "./httpStreams.js";
import {leanStream} from "./leanStream.js";

type LeanResult = Awaited<ReturnType<typeof leanStream>>;
type Request = {target: HttpTarget, run: number};
type Reply = {result?: LeanResult, error?: string};

/** The lean client in a process of its own that yields every core to the server's threads. */
export type IdleClient = {stream(target: HttpTarget, run: number): Promise<LeanResult>, stop(): Promise<void>};

/**
 * Starts the lean client (leanStream.ts) in its own process under Linux's SCHED_IDLE policy
 * (`chrt --idle 0`): it runs only on cycles no other thread wants, so while a stream decodes its
 * reads wait for the gaps between tokens instead of taking a core from the compute threads. A
 * stream read this way against a reply without streaming is what the server's events cost the
 * decode, with the client's share of the two cores left out. Undefined where chrt cannot run.
 */
export async function startIdleClient(): Promise<IdleClient | undefined> {
    if (process.platform !== "linux" || spawnSync("chrt", ["--idle", "0", "true"]).status !== 0)
        return undefined;
    const script = fileURLToPath(import.meta.url);
    const child = spawn("chrt", ["--idle", "0", process.execPath, "--import", "tsx", script, "--child"], {
        cwd: projectRoot,
        stdio: ["ignore", "inherit", "inherit", "ipc"]
    });
    const exited = once(child, "exit");
    return {
        stream: async (target, run) => {
            child.send({target, run} satisfies Request);
            const [reply] = await Promise.race([once(child, "message"), exited.then(() => [{error: "the idle client exited"}])]) as [Reply];
            if (reply.result == null)
                throw new Error(`idle client: ${reply.error}`);
            return reply.result;
        },
        stop: async () => {
            if (child.exitCode == null) {
                child.disconnect();
                await exited;
            }
        }
    };
}

if (process.argv.includes("--child")) {
    process.on("message", async ({target, run}: Request) => {
        try {
            process.send!({result: await leanStream(target, run)} satisfies Reply);
        } catch (error) {
            process.send!({error: String(error)} satisfies Reply);
        }
    });
}
