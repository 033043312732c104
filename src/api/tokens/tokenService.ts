import type {TokenPiece} from "../../engine/loadedModel.js";
import type {ModelSource} from "../../models/modelRegistry.js";
import type {DetokenizeRequest, TokenizeRequest} from "./tokensRequest.js";

export type TokenizeResponse = {tokens: number[] | Array<{id: number, piece: TokenPiece}>};

/**
 * llama-server's /tokenize and /detokenize on any model the server holds (chat, embedding or
 * reranker: each has a vocabulary), loaded if need be, as any request loads its model.
 */
export class TokenService {
    public constructor(private readonly models: ModelSource) {}

    public async tokenize(request: TokenizeRequest, signal: AbortSignal): Promise<TokenizeResponse> {
        const held = await this.models.acquire(request.model, null, {signal});
        try {
            const tokens = await held.model.tokenize(request.content, {
                addSpecial: request.add_special ?? false, parseSpecial: request.parse_special ?? true, param: "content"
            });
            if (request.with_pieces !== true)
                return {tokens};
            const pieces = held.model.tokenPieces(tokens, "content");
            return {tokens: tokens.map((id, index) => ({id, piece: pieces[index]!}))};
        } finally {
            held.release();
        }
    }

    public async detokenize(request: DetokenizeRequest, signal: AbortSignal): Promise<{content: string}> {
        const held = await this.models.acquire(request.model, null, {signal});
        try {
            return {content: held.model.detokenize(request.tokens, "tokens")};
        } finally {
            held.release();
        }
    }
}
