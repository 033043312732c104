import type {LlamaText, Token} from "node-llama-cpp";
import type {CachePartition, ToolDefinition} from "./generationOptions.js";
import type {ArgumentSyntaxText} from "./template/argumentSyntax.js";
import type {TemplateMessage, TemplateTool} from "./template/templateMessage.js";

/**
 * A prompt as the engine hands it back once rendered and tokenized, with what it learned from the
 * chat template (its stop markers, how it writes tool calls and thought) and the images in it.
 */

/** A rendered, tokenized prompt plus the template's own end markers. */
export type PreparedPrompt = {
    tokens: Token[],
    /** Tokens that end the reply besides the model's end-of-generation tokens. */
    stopTokens: Token[],
    /** Text markers that end the reply in templates without an end token ("### Human"). */
    stopStrings: string[],
    /** How this template writes a tool call; set when the prompt was rendered with tools. */
    toolSyntax?: ToolCallSyntax | ArgumentCallSyntax,
    /** How a reasoning model's template marks its thought; set for templates that have one. */
    thought?: ThoughtMarkers,
    /** The reply is in OpenAI's Harmony format (GPT-OSS): channels say what is thought, answer and call. */
    harmony?: boolean,
    /** The client's own token ids: evaluated exactly as sent, never re-spelled in the tokens a cached sequence holds. */
    exactTokens?: boolean,
    /** The images in `tokens`, in order: each stands there as placeholders (one per position it takes). */
    images?: PromptImage[]
};

/** An image file as a request sent it (images/imageInput.ts checks it first); `param` names it in errors. */
export type ImageBytes = {bytes: Uint8Array, id: string, param: string};

/**
 * An image in a prompt's tokens: `positions` placeholder entries from `start`, all one negative value
 * drawn from the image's content, so that a sequence that holds the same image there reuses it and
 * a different one cuts the cache exactly at it (as llama-server compares images by their hash).
 */
export type PromptImage = {
    start: number,
    positions: number,
    /** KV cells (embeddings) it takes: more than `positions` for M-RoPE models. What usage counts. */
    cells: number,
    placeholder: Token,
    /** The projector's native chunk: what encodes and decodes it (engine/vision/nativeVision.ts). */
    chunk: {handle: unknown, index: number, nonCausal: boolean}
};

/** The text around a reasoning model's thought (`<think>` … `</think>`), trimmed. */
export type ThoughtMarkers = {
    open: string,
    close: string,
    /** The prompt ends inside an open thought: the reply begins as thought. */
    opened: boolean,
    /** The markers' tokens, for markers that are special tokens and detokenize to nothing. */
    tokens?: {open: Token, close: Token}
};

/** The text around a tool call, from the chat template (`<tool_call>{"name": "` … `", "arguments": ` … `}</tool_call>`). */
/**
 * A call written with each argument as its own markup, strings raw (Qwen3-Coder's `<parameter=…>`,
 * GLM's `<arg_key>`; template/argumentSyntax.ts says which part is which), where ToolCallSyntax's
 * arguments are one JSON object.
 */
export type ArgumentCallSyntax = {kind: "arguments"} & ArgumentSyntaxText;

export type ToolCallSyntax = {
    kind?: "json",
    /** Opens a reply's calls, before the first one (Mistral's `[TOOL_CALLS][`); empty for most templates. */
    sectionPrefix: LlamaText,
    /** Closes a reply's calls (Mistral's `]` and end of text); empty for most templates. */
    sectionSuffix: LlamaText,
    /** Opens a call; may contain special tokens. */
    prefix: LlamaText,
    /** Between the name and the JSON arguments. */
    paramsPrefix: string,
    /** Closes a call. */
    suffix: LlamaText,
    /** Between two calls of one reply; null when the template has one call per reply. */
    betweenCalls: LlamaText | null,
    /**
     * The generation prompt ends with the call's prefix (Functionary's `>>>`): the reply begins
     * with its recipient, a tool's name or `all` for text.
     */
    opensReply?: boolean,
    /**
     * The params prefix numbers the call (Kimi K2's `:0`): the digit at `at` is the reply's call
     * `first`, and counts up per call; `idHead`, the name and the number are the call's id (`functions.get_weather:0`).
     */
    callIndex?: {at: number, first: number, idHead: string}
};

/**
 * `promptName`: what the client calls its prompt ("messages", "input"), as errors name it; the engine knows no wire names.
 * `cachePartition`: whose decoded images the projector's cache may hand back (cachePartitions.ts).
 * `signal`: the request's; once it aborts, images not decoded yet never are.
 */
export type ChatPromptOptions = {
    tools?: readonly ToolDefinition[],
    /** The conversation and tools as the model's own template reads them (conversation/templateMessages.ts). */
    templateMessages?: readonly TemplateMessage[], templateTools?: readonly TemplateTool[], templateVariables?: Record<string, unknown>,
    thinking?: boolean, images?: readonly ImageBytes[], promptName: string, cachePartition?: CachePartition,
    signal?: AbortSignal
};
