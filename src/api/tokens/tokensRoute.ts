import {Router} from "express";
import type {ReplyWriter} from "../../http/replyWriter.js";
import {parseBody} from "../parseBody.js";
import {detokenizeRequestSchema, tokenizeRequestSchema} from "./tokensRequest.js";
import type {TokenService} from "./tokenService.js";

/** `POST /tokenize` and `POST /detokenize`, llama-server's paths and shapes. Their texts are not logged with --log-prompts. */
export function tokensRoute(service: TokenService, replies: ReplyWriter): Router {
    const router = Router();
    router.post("/tokenize", async (req, res) => {
        const request = parseBody(tokenizeRequestSchema, req.body);
        const reply = await service.tokenize(request, replies.begin(res, request.model));
        if (!res.headersSent)
            res.json(reply);
    });
    router.post("/detokenize", async (req, res) => {
        const request = parseBody(detokenizeRequestSchema, req.body);
        const reply = await service.detokenize(request, replies.begin(res, request.model));
        if (!res.headersSent)
            res.json(reply);
    });
    return router;
}
