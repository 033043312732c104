import type {LoadedModel} from "../../engine/loadedModel.js";
import {BadRequestError} from "../../errors.js";
import type {ModelSource} from "../../models/modelRegistry.js";
import type {EmbeddingList, EmbeddingRequest} from "./embeddingRequest.js";

/**
 * `input` in any of its four shapes → one vector per input, from a model that embeds
 * (400 for one that cannot). `dimensions` is accepted only as the model's own size: GGUF
 * models do not say whether truncating their vectors is meaningful.
 */
export class EmbeddingService {
    public constructor(private readonly models: ModelSource) {}

    public async embed(request: EmbeddingRequest, signal: AbortSignal): Promise<EmbeddingList> {
        const held = await this.models.acquire(request.model, "embeddings", {keepAlive: request.keep_alive, signal});
        try {
            return await embedWith(held.model, request, signal);
        } finally {
            held.release();
        }
    }
}

/** The request's vectors from a model held for it. */
async function embedWith(model: LoadedModel, request: EmbeddingRequest, signal: AbortSignal): Promise<EmbeddingList> {
    if (request.dimensions != null && request.dimensions !== model.embeddingDimensions)
        throw new BadRequestError(
            `The model '${request.model}' produces ${model.embeddingDimensions}-dimensional embeddings and cannot produce ${request.dimensions}.`,
            {param: "dimensions", code: "unsupported_dimensions"});

    const inputs = normalizeInput(request.input);
    const {vectors, promptTokens} = await model.embed(inputs, signal);
    return {
        object: "list",
        data: vectors.map((vector, index) => ({
            object: "embedding",
            index,
            embedding: request.encoding_format === "base64" ? toBase64(vector) : vector
        })),
        model: request.model,
        usage: {prompt_tokens: promptTokens, total_tokens: promptTokens}
    };
}

function normalizeInput(input: EmbeddingRequest["input"]): Array<string | number[]> {
    if (typeof input === "string")
        return [input];
    if (input.every((item) => typeof item === "number"))
        return [input as number[]];
    return input as Array<string | number[]>;
}

/** OpenAI's base64 format: the vector's float32 values, little-endian. */
function toBase64(vector: readonly number[]): string {
    const buffer = Buffer.alloc(vector.length * 4);
    vector.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
    return buffer.toString("base64");
}
