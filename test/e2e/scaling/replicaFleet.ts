import {spawn, type ChildProcess} from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";

const bin = fileURLToPath(new URL("../../../bin/chatserve.cjs", import.meta.url));

/** One chatserve process of the fleet: its fixed port outlives its restarts, as a replica's address does. */
export type Replica = {port: number, address: string, child: ChildProcess | null, output: string};

/**
 * Chatserve replicas as separate processes (the built CLI, bin/chatserve.cjs), each on a port of its
 * own on loopback, serving one models folder. One inference thread each: three of them share the
 * test machine's cores. Each has a cache folder of its own, as separate machines would.
 */
export class ReplicaFleet {
    public readonly replicas: Replica[] = [];

    private constructor(private readonly args: string[], private readonly workDir: string) {}

    public static async start(count: number, modelsDir: string, args: string[]): Promise<ReplicaFleet> {
        const workDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-fleet-"));
        const fleet = new ReplicaFleet(["--models", modelsDir, "--threads", "1", "--log-level", "warn", ...args], workDir);
        for (let index = 0; index < count; index++) {
            const port = await freePort();
            fleet.replicas.push({port, address: `127.0.0.1:${port}`, child: null, output: ""});
        }
        await Promise.all(fleet.replicas.map(async (replica) => await fleet.launch(replica)));
        return fleet;
    }

    /** Starts the replica's process and resolves once GET /health/ready answers 200. */
    public async launch(replica: Replica): Promise<void> {
        const cacheHome = path.join(this.workDir, `cache-${replica.port}`);
        const child = spawn(process.execPath, [bin, ...this.args, "--port", String(replica.port)], {
            stdio: ["ignore", "pipe", "pipe"],
            env: {...process.env, XDG_CACHE_HOME: cacheHome}
        });
        replica.child = child;
        replica.output = "";
        child.stdout!.on("data", (data: Buffer) => replica.output += data.toString());
        child.stderr!.on("data", (data: Buffer) => replica.output += data.toString());
        await waitUntilReady(replica, child);
    }

    /** SIGTERM, as an orchestrator's rolling restart sends it; resolves with the exit code once it has exited. */
    public async stop(replica: Replica, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
        const child = replica.child;
        if (child == null || child.exitCode != null || child.signalCode != null)
            return child?.exitCode ?? null;
        const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
        child.kill(signal);
        replica.child = null;
        return await exit;
    }

    public async close(): Promise<void> {
        await Promise.all(this.replicas.map(async (replica) => await this.stop(replica, "SIGKILL")));
        await fs.rm(this.workDir, {recursive: true, force: true});
    }
}

/** Polls readiness; a replica that never gets ready fails the test through its hook's timeout. */
async function waitUntilReady(replica: Replica, child: ChildProcess): Promise<void> {
    for (;;) {
        if (child.exitCode != null || child.signalCode != null)
            throw new Error(`replica ${replica.address} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${replica.output}`);
        try {
            const response = await fetch(`http://${replica.address}/health/ready`);
            if (response.status === 200)
                return;
        } catch {
            // Not listening yet.
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
}

/** A port nothing listens on (one the system just gave out and took back). */
export async function freePort(): Promise<number> {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as net.AddressInfo).port;
    await new Promise((resolve) => holder.close(resolve));
    return port;
}
