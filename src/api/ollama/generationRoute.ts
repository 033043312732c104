import {Router, type Response} from "express";
import {cachePartitionOf} from "../../http/cachePartition.js";
import type {ReplyWriter} from "../../http/replyWriter.js";
import {parseBody} from "../parseBody.js";
import {ollamaBody, ollamaStream} from "./ollamaReply.js";
import {chatRequestSchema, embeddingsRequestSchema, embedRequestSchema, generateRequestSchema} from "./ollamaRequest.js";
import type {OllamaService, OllamaStart} from "./ollamaService.js";

/**
 * Ollama's generating endpoints: `POST /api/chat` and `/api/generate` (NDJSON unless `stream` is
 * false, Ollama's default being a stream), `/api/embed` and the older `/api/embeddings`.
 */
export function generationRoute(service: OllamaService, replies: ReplyWriter): Router {
    const router = Router();
    router.post("/api/chat", async (req, res) => {
        const request = parseBody(chatRequestSchema, req.body);
        const signal = replies.begin(res, request.model, {messages: request.messages, tools: request.tools});
        await reply(res, replies, request, await service.chat(request, signal, cachePartitionOf(res)), "chat");
    });

    router.post("/api/generate", async (req, res) => {
        const request = parseBody(generateRequestSchema, req.body);
        const signal = replies.begin(res, request.model, {system: request.system, prompt: request.prompt, suffix: request.suffix});
        await reply(res, replies, request, await service.generate(request, signal, cachePartitionOf(res)), "generate");
    });

    router.post("/api/embed", async (req, res) => {
        const request = parseBody(embedRequestSchema, req.body);
        const embedded = await service.embed(request, replies.begin(res, request.model));
        // The server's stop may have answered meanwhile.
        if (!res.headersSent)
            res.json(embedded);
    });

    router.post("/api/embeddings", async (req, res) => {
        const request = parseBody(embeddingsRequestSchema, req.body);
        const {embeddings} = await service.embed({...request, input: request.prompt}, replies.begin(res, request.model));
        if (!res.headersSent)
            res.json({embedding: embeddings[0]});
    });
    return router;
}

async function reply(res: Response, replies: ReplyWriter, request: {model: string, stream?: boolean | null}, started: OllamaStart, kind: "chat" | "generate"): Promise<void> {
    if (started.type === "lifecycle")
        return lifecycleReply(res, request, started.reason, kind);
    const {generation, release} = started;
    if (request.stream === false)
        await replies.json(res, release, () => ollamaBody(generation));
    else
        await replies.ndjson(res, release, (ndjson) => ollamaStream(ndjson, generation));
}

/** The answer to Ollama's empty request: one object saying the model was loaded or unloaded, as a one-line stream unless `stream` is false. */
function lifecycleReply(res: Response, request: {model: string, stream?: boolean | null}, reason: "load" | "unload", kind: "chat" | "generate"): void {
    const body = {
        model: request.model, created_at: new Date().toISOString(),
        ...(kind === "chat" ? {message: {role: "assistant", content: ""}} : {response: ""}),
        done_reason: reason, done: true
    };
    if (request.stream === false)
        res.json(body);
    else
        res.type("application/x-ndjson").send(`${JSON.stringify(body)}\n`);
}
