import type {ChatHistoryItem, LlamaModel, Token} from "node-llama-cpp";
import type {ModelVision} from "./vision/modelVision.js";
import {renderChatPrompt} from "./chatPrompt.js";
import {tokenizeContent} from "./contentTokens.js";
import {promptText} from "./promptText.js";
import {pieceOf, piecesText} from "./tokenPieces.js";
import type {GenerationParts} from "./llamaModelParts.js";
import {imageCacheId} from "./cachePartitions.js";
import {refuseHistoryBeyondContext, refuseTextBeyondContext} from "./promptSizeGuard.js";
import {prepareInfillPrompt, prepareTextPrompt, prepareTokenPrompt, refuseTokensOutsideVocabulary} from "./textPrompt.js";
import type {TokenizeRequest, TokenPiece} from "./loadedModel.js";
import type {ChatPromptOptions, PreparedPrompt} from "./preparedPrompt.js";

/**
 * A loaded model's prompts and tokens: a conversation rendered with its template (its images
 * tokenized by the projector), a raw text, a client's token ids, a fill-in-the-middle prompt, and
 * tokens spelled back. None of it needs a sequence, only the vocabulary and the template; so it lives
 * apart from llamaLoadedModel.ts, which decides when it may run (not once the model is retiring).
 */
export class ModelPrompts {
    public constructor(
        private readonly model: LlamaModel,
        private readonly vision: ModelVision,
        /** The generation parts (template, batch size); throws for a model loaded for embeddings only. */
        private readonly generating: () => GenerationParts,
        /** Tokens one request can use, prompt and completion together (the loaded model's `contextLength`). */
        private readonly contextLength: () => number
    ) {}

    public async chat(
        history: ChatHistoryItem[], {images = [], promptName, cachePartition, signal = new AbortController().signal, ...options}: ChatPromptOptions
    ): Promise<PreparedPrompt> {
        await refuseHistoryBeyondContext(this.model, history, this.contextLength(), promptName);
        const partitioned = images.map((image) => ({...image, id: imageCacheId(image.id, cachePartition)}));
        const tokenized = await this.vision.tokenize(partitioned, this.generating().context.batchSize, promptName, signal);
        const {chatWrapper: wrapper, templates} = this.generating();
        return renderChatPrompt(this.model, {wrapper, templates}, history, {...options, images: tokenized, promptName});
    }

    public async text(prompt: string, promptName: string): Promise<PreparedPrompt> {
        await refuseTextBeyondContext(this.model, [prompt], this.contextLength(), {param: promptName});
        return prepareTextPrompt(this.model, prompt);
    }

    // Async although the work is not: a refusal reaches the caller as a rejection, as the other prompts' do.
    public async tokens(tokens: readonly number[], param: string): Promise<PreparedPrompt & {text: string}> {
        return prepareTokenPrompt(this.model, tokens, this.contextLength(), param);
    }

    public async infill(prefix: string, suffix: string, completion: {tokens: number, param: string}): Promise<PreparedPrompt> {
        const prompt = await prepareInfillPrompt(this.model, prefix, suffix, {contextLength: this.contextLength(), completionTokens: completion.tokens, lengthParam: completion.param});
        if (prompt == null)
            throw new Error("this model has no fill-in-the-middle tokens");
        return prompt;
    }

    public async tokenize(content: ReadonlyArray<string | number>, options: TokenizeRequest): Promise<number[]> {
        return tokenizeContent(this.model, content, options);
    }

    public tokenPieces(tokens: readonly number[], param: string): TokenPiece[] {
        refuseTokensOutsideVocabulary(this.model, tokens, param);
        return tokens.map((token) => pieceOf(this.model, token as Token));
    }

    public detokenize(tokens: readonly number[], param: string): string {
        refuseTokensOutsideVocabulary(this.model, tokens, param);
        return piecesText(this.model, tokens as Token[]);
    }

    public promptText(prompt: PreparedPrompt): string {
        return promptText(this.model, prompt);
    }
}
