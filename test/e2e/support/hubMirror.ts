// A local stand-in for the Hugging Face hub, in its URL layout, so pull tests never leave the machine:
//   GET /api/models/{user}/{repo}[/revision/{rev}]?blobs=true → {id, siblings: [{rfilename, size, lfs: {sha256, size}}]}
//   GET|HEAD /{user}/{repo}/resolve/{rev}/{path}              → the file, with Range requests (206)
//   GET|HEAD /files/{name}                                      → a file at a plain URL (not a hub URL)
// An unknown repository gets 401, as the hub answers one it does not show without signing in.
import {createHash} from "node:crypto";
import http from "node:http";
import type {AddressInfo} from "node:net";

export type MirrorRepo = {id: string, files: Record<string, Buffer>};

export type MirrorRequest = {method: string, path: string, range?: string};

/** How the next ranged downloads of a file misbehave. */
type Interruption = {file: string, atByte: number, how: "stall" | "cut", times: number};

export class HubMirror {
    public readonly requests: MirrorRequest[] = [];
    private interruptions: Interruption[] = [];
    private readonly stalled = new Set<http.ServerResponse>();
    private readonly listed = new Map<string, Buffer>();
    private readonly refused = new Map<string, number>();

    private constructor(private readonly server: http.Server, private readonly repos: MirrorRepo[], private readonly plainFiles: Record<string, Buffer>) {}

    public static async start(repos: MirrorRepo[], plainFiles: Record<string, Buffer> = {}): Promise<HubMirror> {
        const server = http.createServer();
        const mirror = new HubMirror(server, repos, plainFiles);
        server.on("request", (req, res) => mirror.handle(req, res));
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        return mirror;
    }

    /** The endpoint to pass as --hf-endpoint, with its trailing slash. */
    public get url(): string {
        return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
    }

    /**
     * The next `times` ranged responses for `file` (a repository path, or `/files/name`) send nothing
     * past byte `atByte` of the file: "stall" then keeps the connection open and silent, "cut" closes it.
     */
    public interrupt(file: string, atByte: number, how: "stall" | "cut", times = 1): void {
        this.interruptions.push({file, atByte, how, times});
    }

    /** Downloads of `file` get `bytes`, while the listing keeps the size and SHA-256 of the file it had (`bytes` equal to it heal it). */
    public serveDamaged(repoId: string, file: string, bytes: Buffer): void {
        const repo = this.repos.find((candidate) => candidate.id === repoId)!;
        const key = `${repoId}/${file}`;
        const original = this.listed.get(key) ?? repo.files[file]!;
        if (bytes.equals(original))
            this.listed.delete(key);
        else
            this.listed.set(key, original);
        repo.files[file] = bytes;
    }

    /** Downloads of `file` (a repository path) get `status`, as a gated repository's files do without a token; null serves it again. */
    public refuse(file: string, status: number | null): void {
        if (status == null)
            this.refused.delete(file);
        else
            this.refused.set(file, status);
    }

    /** Interruptions asked for that have not happened yet. */
    public interruptionsLeft(): number {
        return this.interruptions.reduce((sum, interruption) => sum + interruption.times, 0);
    }

    /** Bytes of `file` sent so far, over every response. */
    public sentBytes(file: string): number {
        return this.sent.get(file) ?? 0;
    }

    public async close(): Promise<void> {
        for (const res of this.stalled)
            res.destroy();
        this.server.closeAllConnections();
        await new Promise((resolve) => this.server.close(resolve));
    }

    private readonly sent = new Map<string, number>();

    private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
        const url = new URL(req.url ?? "/", "http://mirror");
        const path = decodeURIComponent(url.pathname);
        this.requests.push({method: req.method ?? "GET", path, ...(req.headers.range != null ? {range: req.headers.range} : {})});

        const listing = /^\/api\/models\/([^/]+\/[^/]+)(?:\/revision\/([^/]+))?$/.exec(path);
        if (listing != null) {
            const repo = this.repos.find((candidate) => candidate.id === listing[1]);
            if (repo == null || (listing[2] != null && listing[2] !== "main"))
                return json(res, repo == null ? 401 : 404, {error: repo == null ? "Repository not found" : "Invalid rev id"});
            return json(res, 200, {
                id: repo.id,
                siblings: Object.entries(repo.files).map(([rfilename, content]) => {
                    const listed = this.listed.get(`${repo.id}/${rfilename}`) ?? content;
                    return {rfilename, size: listed.length, lfs: {sha256: createHash("sha256").update(listed).digest("hex"), size: listed.length, pointerSize: 134}};
                })
            });
        }

        const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
        if (resolve != null) {
            const refused = this.refused.get(resolve[3]!);
            if (refused != null)
                return json(res, refused, {error: "Access to this model is restricted: you must be authenticated"});
            const content = resolve[2] === "main" ? this.repos.find((candidate) => candidate.id === resolve[1])?.files[resolve[3]!] : undefined;
            return content == null ? json(res, 404, {error: "Entry not found"}) : this.sendFile(req, res, resolve[3]!, content);
        }
        const plain = /^\/files\/(.+)$/.exec(path);
        const content = plain != null ? this.plainFiles[plain[1]!] : undefined;
        if (content != null)
            return this.sendFile(req, res, path, content);
        json(res, 404, {error: "Not found"});
    }

    private sendFile(req: http.IncomingMessage, res: http.ServerResponse, file: string, content: Buffer): void {
        const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
        const start = range != null ? Number(range[1]) : 0;
        const end = range != null && range[2] !== "" ? Math.min(Number(range[2]), content.length - 1) : content.length - 1;
        if (start > end && content.length > 0) {
            res.writeHead(416, {"content-range": `bytes */${content.length}`}).end();
            return;
        }
        res.writeHead(range != null ? 206 : 200, {
            "accept-ranges": "bytes",
            "content-type": "application/octet-stream",
            "content-length": String(end - start + 1),
            ...(range != null ? {"content-range": `bytes ${start}-${end}/${content.length}`} : {})
        });
        if (req.method === "HEAD")
            return void res.end();

        const interruption = range != null ? this.interruptions.find((candidate) => candidate.file === file && candidate.times > 0) : undefined;
        const stopAt = interruption != null ? Math.min(end + 1, Math.max(start, interruption.atByte)) : end + 1;
        if (interruption != null && stopAt <= end)
            interruption.times--;
        const body = content.subarray(start, stopAt);
        this.sent.set(file, (this.sent.get(file) ?? 0) + body.length);
        if (stopAt > end)
            return void res.end(body);
        res.write(body, () => {
            if (interruption!.how === "cut")
                res.destroy();
            else
                this.stalled.add(res);
        });
    }
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, {"content-type": "application/json"}).end(JSON.stringify(body));
}
