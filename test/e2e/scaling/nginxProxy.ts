import {spawn, type ChildProcess} from "node:child_process";
import {existsSync} from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";

/**
 * Debian's nginx in front of the replicas, running the reference configuration
 * (docs/scaling/nginx.conf). NGINX_PATH overrides where it is looked for; without one the tests skip
 * saying why (.ci/run installs it).
 */
const candidates = [process.env.NGINX_PATH, "/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
    .filter((file): file is string => file != null && file !== "");

export const nginxPath: string | null = candidates.find((file) => existsSync(file)) ?? null;
export const noNginxReason = `no nginx at ${candidates.join(", ")} (apt-get install nginx, or set NGINX_PATH)`;

export const referenceConfig = fileURLToPath(new URL("../../../docs/scaling/nginx.conf", import.meta.url));

/** The response header the test copy adds: the replicas nginx tried for a request, in order ($upstream_addr). */
export const replicaHeader = "x-test-upstream";

/**
 * The reference configuration with only what a deployment changes changed: the upstream's servers
 * (here the replicas on loopback) and the port it listens on. One line is added for the test to
 * see where each request went. Each change must apply, so the test fails if the reference drifts.
 */
export function testCopyOf(reference: string, replicaAddresses: readonly string[], listenPort: number): string {
    const servers = /(upstream chatserve \{[\s\S]*?)((?:\n[ \t]*server [^\n]*;)+)/;
    const serverLines = servers.exec(reference)?.[2];
    if (serverLines == null)
        throw new Error("docs/scaling/nginx.conf has no server lines in `upstream chatserve`");
    // Each replica gets the parameters the reference's first server line has (max_fails …).
    const parameters = /server \S+([^;]*);/.exec(serverLines)![1];
    const replaced = reference.replace(servers, (_all, head: string) =>
        head + replicaAddresses.map((address) => `\n    server ${address}${parameters};`).join(""));
    return mustReplace(
        mustReplace(replaced, /\n    listen \d+;/, `\n    listen 127.0.0.1:${listenPort};`),
        /\n    location \/ \{\n/, `\n    location / {\n        add_header ${replicaHeader} $upstream_addr always;\n`
    );
}

function mustReplace(text: string, pattern: RegExp, replacement: string): string {
    if (!pattern.test(text))
        throw new Error(`docs/scaling/nginx.conf no longer has ${pattern}`);
    return text.replace(pattern, () => replacement);
}

export class NginxProxy {
    private constructor(private readonly child: ChildProcess, private readonly prefix: string, public readonly url: string, private readonly log: () => Promise<string>) {}

    /** Starts nginx in the foreground with the site configuration `site`, in a prefix folder of its own; resolves once it proxies. */
    public static async start(site: string, port: number): Promise<NginxProxy> {
        const prefix = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-nginx-"));
        await fs.writeFile(path.join(prefix, "chatserve.conf"), site);
        await fs.writeFile(path.join(prefix, "nginx.conf"), mainConfig(prefix));
        const errorLog = path.join(prefix, "error.log");
        const child = spawn(nginxPath!, ["-p", prefix, "-c", path.join(prefix, "nginx.conf"), "-e", errorLog], {stdio: ["ignore", "pipe", "pipe"]});
        let output = "";
        child.stdout!.on("data", (data: Buffer) => output += data.toString());
        child.stderr!.on("data", (data: Buffer) => output += data.toString());
        const log = async () => `${output}${await fs.readFile(errorLog, "utf8").catch(() => "")}`;
        const proxy = new NginxProxy(child, prefix, `http://127.0.0.1:${port}`, log);
        for (;;) {
            if (child.exitCode != null)
                throw new Error(`nginx exited (${child.exitCode}):\n${await log()}`);
            const answered = await fetch(`${proxy.url}/health`).then((response) => response.status === 200, () => false);
            if (answered)
                return proxy;
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
    }

    /** nginx's error log: what it retried, and why (for a failing test's message). */
    public async errorLog(): Promise<string> {
        return await this.log();
    }

    public async stop(): Promise<void> {
        if (this.child.exitCode == null) {
            const exited = new Promise((resolve) => this.child.once("exit", resolve));
            this.child.kill("SIGTERM");
            await exited;
        }
        await fs.rm(this.prefix, {recursive: true, force: true});
    }
}

/** nginx.conf's own part: foreground, one worker, every path inside the prefix; the site goes in `http`. */
function mainConfig(prefix: string): string {
    // As root (CI's containers), workers would switch to `nobody`, who cannot write the prefix.
    const user = process.getuid?.() === 0 ? "user root;\n" : "";
    return `${user}daemon off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 512; }
http {
    access_log off;
    client_body_temp_path ${prefix}/client_body;
    proxy_temp_path ${prefix}/proxy;
    fastcgi_temp_path ${prefix}/fastcgi;
    uwsgi_temp_path ${prefix}/uwsgi;
    scgi_temp_path ${prefix}/scgi;
    include ${prefix}/chatserve.conf;
}
`;
}
