import {createHash} from "node:crypto";
import {Router, type Response} from "express";
import {ApiError, toApiError} from "../../errors.js";
import {NdjsonWriter} from "../../http/ndjsonWriter.js";
import type {ReplyWriter} from "../../http/replyWriter.js";
import type {ModelRegistry} from "../../models/modelRegistry.js";
import {resolveHubEndpoint} from "../../pull/hubListing.js";
import {describePullSource} from "../../pull/pullSource.js";
import {pullModel} from "../../pull/pullModel.js";
import {parseBody} from "../parseBody.js";
import {modelNamed, namedModelSchema} from "./ollamaRequest.js";
import {pullSourceOf} from "./pullName.js";

/** Ollama's progress object: a status line, and for a download its digest, total and completed bytes. */
type Progress = {status: string, digest?: string, total?: number, completed?: number};

/**
 * `POST /api/pull`: `chatserve pull`'s downloader (pull/pullModel.ts: staged in `.partial/`, checked,
 * then moved into the models folder, resumable) with Ollama's NDJSON progress, or one
 * `{"status": "success"}` with `stream: false`. The folder is rescanned then, so the next request
 * finds the new model (not only at the next periodic rescan). It changes the models folder, so
 * with keys configured it needs one (and an admin key where those are set: http/adminOnly.ts).
 */
export function pullRoute(registry: ModelRegistry, modelsDir: string, replies: ReplyWriter): Router {
    const router = Router();
    router.post("/api/pull", async (req, res) => {
        const body = parseBody(namedModelSchema, req.body ?? {});
        const name = modelNamed(body);
        const hubEndpoint = hubEndpointOrFail();
        // A name it cannot resolve is refused before anything is sent.
        const source = pullSourceOf(name, hubEndpoint);
        const signal = replies.begin(res, name);
        // Ollama groups a download's progress by digest: one stable digest per source.
        const digest = `sha256:${createHash("sha256").update(describePullSource(source)).digest("hex")}`;
        const stream = body.stream === false ? null : new NdjsonWriter(res);
        stream?.open();
        stream?.send({status: "pulling manifest"} satisfies Progress);
        let lastPercent = -1;
        const progress = ({downloadedBytes, totalBytes}: {downloadedBytes: number, totalBytes: number}) => {
            // A line per whole percent: enough for a progress bar, not a line per network chunk.
            const percent = totalBytes > 0 ? Math.floor(downloadedBytes / totalBytes * 100) : 0;
            if (percent === lastPercent)
                return;
            lastPercent = percent;
            stream?.send({status: `pulling ${digest.slice(7, 19)}`, digest, total: totalBytes, completed: downloadedBytes} satisfies Progress);
        };
        try {
            await pullModel({
                source, modelsDir, hubEndpoint, signal,
                say: (line) => stream?.send({status: line} satisfies Progress),
                onStart: progress, onProgress: progress,
                onVerify: () => stream?.send({status: "verifying sha256 digest"} satisfies Progress)
            });
            // Listed at once, not at the next periodic rescan.
            await registry.rescan();
            const done = {status: "success"} satisfies Progress;
            if (stream != null) {
                stream.send(done);
                stream.close();
            } else if (!res.headersSent)
                res.json(done);
        } catch (error) {
            failPull(res, stream, error);
        }
    });
    return router;
}

/** A download that failed (the source refused, the network, a check of the file): before the stream, a 502; within it, a last `{"error"}` line. */
function failPull(res: Response, stream: NdjsonWriter | null, error: unknown): void {
    const apiError = error instanceof ApiError ? error : new ApiError(502, `The pull failed: ${(error as Error).message ?? String(error)}`, "api_error", "pull_failed", "model");
    if (stream == null)
        throw apiError;
    if (!stream.closed)
        stream.fail(toApiError(apiError));
}

/** The hub's address from the server's environment (HF_ENDPOINT, MODEL_ENDPOINT); one that is not a URL is the server's fault, said as such. */
function hubEndpointOrFail(): string {
    try {
        return resolveHubEndpoint();
    } catch (error) {
        throw new ApiError(502, `The pull cannot start: ${(error as Error).message}.`, "api_error", "pull_failed", null);
    }
}
