import http from "node:http";
import {mkdir, writeFile} from "node:fs/promises";
import path from "node:path";
import type {AddressInfo, Socket} from "node:net";

/** One request a client made, as the recorder saw it. */
export type Exchange = {
    client: string,
    method: string,
    path: string,
    status: number,
    /** chatserve's x-request-id for it, to find its line in chatserve's request log. */
    requestId?: string,
    /** The request's JSON body (chatserve's endpoints all take JSON), or null. */
    body: unknown,
    /** An error the reply carried: a non-2xx body's message, or an error event inside a stream. */
    error?: string,
    /** Everything the reply said, as text (bodies are small: a scripted model writes a few tokens). */
    reply: string
};

/** A request a client tried to send somewhere other than chatserve, through the proxy it was given. */
export type Outbound = {client: string, target: string};

/**
 * A reverse proxy in front of chatserve that records every request a client makes (method, path,
 * status, body, and any error in the reply), and the HTTP(S) proxy the clients are given for the
 * rest of the world, which refuses everything and records where it was asked to go.
 */
export class RequestRecorder {
    public readonly exchanges: Exchange[] = [];
    public readonly outbound: Outbound[] = [];
    /** The client whose requests arrive now (the runner runs one at a time). */
    public client = "";
    private readonly server: http.Server;

    private constructor(private readonly target: URL, private readonly traceDir: string | null) {
        this.server = http.createServer((req, res) => void this.forward(req, res));
        // An HTTPS proxy is asked with CONNECT host:443; a plain HTTP one with an absolute URI.
        this.server.on("connect", (req: http.IncomingMessage, socket: Socket) => {
            this.outbound.push({client: this.client, target: req.url ?? ""});
            socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
        });
    }

    /** Listens on 127.0.0.1 (a free port) and forwards to `target` (chatserve's origin). */
    public static async start(target: string, traceDir: string | null): Promise<RequestRecorder> {
        const recorder = new RequestRecorder(new URL(target), traceDir);
        await new Promise<void>((resolve) => recorder.server.listen(0, "127.0.0.1", resolve));
        return recorder;
    }

    public get origin(): string {
        return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    }

    public close(): Promise<void> {
        this.server.closeAllConnections();
        return new Promise((resolve) => this.server.close(() => resolve()));
    }

    private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
        if (/^https?:\/\//i.test(req.url ?? "")) {
            this.outbound.push({client: this.client, target: req.url!});
            res.writeHead(403).end();
            return;
        }
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const raw = Buffer.concat(chunks);
        const exchange: Exchange = {client: this.client, method: req.method ?? "", path: req.url ?? "", status: 0, body: parseJson(raw.toString("utf8")), reply: ""};
        this.exchanges.push(exchange);
        const headers = {...req.headers, host: this.target.host};
        const upstream = http.request(this.target, {method: req.method, path: req.url, headers}, (reply) => {
            exchange.status = reply.statusCode ?? 0;
            exchange.requestId = reply.headers["x-request-id"] as string | undefined;
            res.writeHead(exchange.status, reply.headers);
            reply.on("data", (chunk: Buffer) => {
                exchange.reply += chunk.toString("utf8");
                res.write(chunk);
            });
            reply.on("end", () => {
                res.end();
                exchange.error = replyError(exchange.status, exchange.reply);
                void this.trace(exchange, raw);
            });
        });
        upstream.on("error", (error) => {
            exchange.error = `recorder: chatserve unreachable: ${error.message}`;
            if (!res.headersSent) res.writeHead(502);
            res.end();
        });
        // A client that gives up (or aborts a stream) takes chatserve's request with it.
        res.on("close", () => { if (!res.writableFinished) upstream.destroy(); });
        upstream.end(raw);
    }

    /** With a trace folder, each exchange's request and reply as files, numbered in order. */
    private async trace(exchange: Exchange, body: Buffer): Promise<void> {
        if (this.traceDir == null) return;
        const index = this.exchanges.indexOf(exchange) + 1;
        const base = path.join(this.traceDir, `${String(index).padStart(3, "0")}-${exchange.client}-${exchange.method}-${exchange.path.replace(/\W+/g, "_")}`);
        await mkdir(this.traceDir, {recursive: true});
        await writeFile(`${base}.request.json`, body);
        await writeFile(`${base}.reply.txt`, `${exchange.status}\n\n${exchange.reply}`);
    }
}

function parseJson(text: string): unknown {
    try {
        return text === "" ? null : JSON.parse(text);
    } catch {
        return null;
    }
}

/**
 * The error a reply carried, if any: a non-2xx body's `error.message` (OpenAI's envelope), or the
 * first streamed event with an `error` (chat completions' in-band error, the Responses API's
 * `error` and `response.failed` events).
 */
function replyError(status: number, reply: string): string | undefined {
    if (status < 200 || status >= 300) {
        const body = parseJson(reply) as {error?: {message?: string, code?: string}} | null;
        return body?.error?.message != null ? `${status} ${body.error.code ?? ""}: ${body.error.message}`.replace(" :", ":") : `${status}: ${reply.slice(0, 200)}`;
    }
    for (const line of reply.split("\n")) {
        if (!line.startsWith("data:")) continue;
        const event = parseJson(line.slice(5).trim()) as {type?: string, error?: {message?: string}, response?: {error?: {message?: string}}} | null;
        const message = event?.error?.message ?? (event?.type === "response.failed" ? event.response?.error?.message ?? "response.failed" : undefined);
        if (message != null) return `in the stream: ${message}`;
    }
    return undefined;
}
