import type {Llama, LlamaContext, LlamaModel} from "node-llama-cpp";
import {ApiError, BadRequestError} from "../../errors.js";
import type {ImageBytes} from "../preparedPrompt.js";
import {ImageEvaluator} from "./imageEvaluation.js";
import type {ImageDecodePool} from "./imageDecodePool.js";
import {mediaMarker} from "./mediaMarker.js";
import {NativeProjector, type TokenizedImage} from "./nativeVision.js";

/**
 * A loaded model's image input: its projector and what puts images into its sequences, or why it
 * has none (no projector paired with it, an embedding-only load, a projector that failed to load:
 * the model then serves text, and image requests get the reason).
 */
export class ModelVision {
    private constructor(
        private readonly projector: NativeProjector | null,
        /** Why the model takes no images; null when it does. */
        public readonly refusal: string | null,
        /** Evaluates a prompt's images into a sequence (engine/sequenceGeneration.ts). */
        public readonly images?: ImageEvaluator
    ) {}

    /** `context`: the generation context images go into (null for an embedding-only load). */
    public static async load(
        llama: Llama, model: LlamaModel, context: LlamaContext | null, projector: {path: string, threads: number, decodes: ImageDecodePool} | undefined, refused?: string
    ): Promise<ModelVision> {
        if (projector == null)
            return new ModelVision(null, refused ?? "no vision projector (mmproj) is paired with it (README, \"Image input\")");
        if (context == null)
            return new ModelVision(null, "it was loaded for embeddings only");
        try {
            const loaded = await NativeProjector.load(llama, model, projector.path, {threads: projector.threads, marker: mediaMarker, decodes: projector.decodes});
            return new ModelVision(loaded, null, new ImageEvaluator(loaded, context));
        } catch (error) {
            return new ModelVision(null, `its projector ${projector.path} could not be loaded (${(error as Error).message})`);
        }
    }

    /**
     * Each image decoded and split into the projector's parts, one at a time (a request may carry
     * many), each when the server's pool of decodes has room (imageDecodePool.ts: a 503 when its
     * queue is full). Once the signal aborts (the client left) the rest never decode. 400s: a model
     * without vision (with the reason), a file the decoder cannot read, a non-causal image larger than
     * the batch it must be decoded in.
     */
    public async tokenize(images: readonly ImageBytes[], batchSize: number, promptName: string, signal: AbortSignal): Promise<TokenizedImage[]> {
        if (images.length === 0)
            return [];
        const {projector} = this;
        if (projector == null)
            throw new BadRequestError(`This model does not take image input: ${this.refusal}.`, {param: promptName, code: "image_input_not_supported"});
        const tokenized: TokenizedImage[] = [];
        for (const image of images) {
            const parts = await projector.tokenize(image.bytes, image.id, signal).catch((error: unknown) => {
                // A full queue (503), or the request's own abort: not the image's fault.
                if (signal.aborted || error instanceof ApiError)
                    throw error;
                throw new BadRequestError(`Invalid '${image.param}': ${(error as Error).message}.`, {param: image.param, code: "invalid_image"});
            });
            const tooLarge = parts.parts.find((part) => part.type === "image" && part.nonCausal && part.tokens > batchSize);
            if (tooLarge?.type === "image")
                throw new BadRequestError(
                    `Invalid '${image.param}': the image takes ${tooLarge.tokens} tokens, and this model decodes an image in one batch of at most ${batchSize}.`,
                    {param: image.param, code: "image_too_large"});
            tokenized.push(parts);
        }
        return tokenized;
    }

    /** Frees the projector: before the model, whose vocabulary it holds. */
    public dispose(): void {
        this.projector?.dispose();
    }
}
