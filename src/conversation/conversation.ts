import type {CachePartition} from "../engine/generationOptions.js";
import type {LoraScaleRequest} from "../engine/loraScales.js";
import type {HoldOptions} from "../models/registrySettings.js";

/**
 * chatserve's own request: the conversation every chat-shaped wire API (OpenAI chat completions,
 * OpenAI Responses, Anthropic Messages) converts into with a pure function in its folder under
 * src/api/, and that conversation/conversationService.ts runs. No wire protocol owns it: fields
 * are chatserve's names, and every default that is not the API's own is filled in below it.
 *
 * Each piece that can be wrong remembers where it came from in its API's terms (a `WirePath`), so
 * a 400 raised here or below names `input[1].content[0]` or `messages[2].content[1].source`
 * without any table that renames one API's fields into another's.
 */
export type Conversation = {
    /** The model the client asked for (a name or an alias). */
    model: string,
    /** How the client names its prompt in errors ("messages", "input"). */
    promptPath: WirePath,
    messages: Message[],
    tools: Tool[],
    /** Absent: "auto" when there are tools, "none" when there are not. */
    toolChoice?: ToolChoice,
    /** Whether one reply may hold several calls; absent: yes. */
    parallelToolCalls?: boolean,
    /** The reply as free text, or as JSON (OpenAI's `response_format`, Responses' `text.format`). */
    output: OutputFormat,
    sampling: Sampling,
    /** The reply's length the client asked for; absent: the room the prompt leaves. */
    maxTokens?: number,
    stop: string[],
    /** A reasoning model thinks unless this is false (Anthropic's `thinking: disabled`, effort "none"…). */
    thinking: boolean,
    /**
     * Variables for the model's own chat template, as llama-server takes them (`chat_template_kwargs`;
     * `reasoning_effort`, GPT-OSS's): a family's own switches, such as DeepSeek V3.1's `thinking`.
     */
    templateVariables?: Record<string, unknown>,
    keepAlive?: HoldOptions["keepAlive"],
    /** How many replies to generate (OpenAI's `n`), one after another on one sequence. */
    choices: number,
    /** Report each sampled token's log probability with this many alternatives (0–20). */
    logprobs?: {top: number},
    /** The reply the client expects (OpenAI's Predicted Outputs): drafts the engine verifies, never a change to the reply. */
    prediction?: string,
    /** Scales for the model's LoRA adapters by index (llama-server's `lora`; engine/loraScales.ts); absent: the model's own. */
    lora?: LoraScaleRequest,
    /**
     * Whose cached prompts and images it may reuse (absent: those every request shares). Who sent it,
     * not what it says: set beside the converters (from the HTTP layer's http/cachePartition.ts), never by them.
     */
    cachePartition?: CachePartition
};

/** Where something is in its API's request, as an error names it: `messages[2].content[1]`. */
export type WirePath = string;

export type Message = {
    role: "system" | "user" | "assistant",
    parts: Part[],
    path: WirePath,
    /** The role as the request named it, where that differs (OpenAI's "developer" is a system message); errors say it. */
    wireRole?: string
};

export type Part = TextPart | ImagePart | ThoughtPart | ToolCallPart | ToolResultPart;

export type TextPart = {type: "text", text: string};

/** An image by URL (a data: URI or http(s)); `urlPath` names the field that holds it (its bytes' errors). */
export type ImagePart = {type: "image", url: string, path: WirePath, urlPath: WirePath};

/** A reasoning model's earlier thought, in an assistant message. */
export type ThoughtPart = {type: "thought", text: string};

/** A call an assistant message made; `arguments` as the client sent them (JSON text, or not). */
export type ToolCallPart = {type: "toolCall", id: string, name: string, arguments: string};

/** A tool's result answering the call `callId` made (its text and images). */
export type ToolResultPart = {
    type: "toolResult",
    callId: string,
    content: Array<TextPart | ImagePart>,
    path: WirePath,
    callIdPath: WirePath
};

export type Tool = {
    name: string,
    description?: string,
    /** The parameters' JSON Schema as the client sent it; absent: no parameters. */
    parameters?: Record<string, unknown> | null,
    /** Whether the schema is enforced exactly (OpenAI's `strict`); otherwise it is read leniently. */
    strict: boolean,
    /** Where the parameters' schema is (`tools[0].function.parameters`, `tools[1].input_schema`). */
    parametersPath: WirePath
};

/** "auto": text or calls; "required": at least one call; a name: that call; "none": text only. */
export type ToolChoice = "auto" | "none" | "required" | {name: string};

export type OutputFormat =
    | {type: "text"}
    /** A JSON value; `schema` null: any JSON object. `path` names the format, `schemaPath` its schema. */
    | {type: "json", schema: Record<string, unknown> | null, strict: boolean, path: WirePath, schemaPath: WirePath}
    /** Raw text under a client's constraint (llama-server's `grammar`, vLLM's `structured_outputs`); `path` names the field. */
    | {type: "grammar", constraint: TextConstraint, path: WirePath};

/** A constraint on raw text: a GBNF grammar, a regular expression the whole reply matches, or one of a list of texts. */
export type TextConstraint =
    | {kind: "gbnf", grammar: string}
    | {kind: "regex", pattern: string}
    | {kind: "choice", choices: string[]};

/** What the client set; what it did not is the model's default from its settings, else OpenAI's. */
export type Sampling = {
    temperature?: number,
    topP?: number,
    seed?: number,
    presencePenalty?: number,
    frequencyPenalty?: number,
    /** Ollama's `options` name these too (top_k, min_p, repeat_penalty); otherwise the model's settings alone. */
    topK?: number,
    minP?: number,
    repeatPenalty?: number,
    /** Token id → bias from -100 to 100 (OpenAI's `logit_bias`), checked against the model's vocabulary. */
    logitBias?: Record<string, number>
};
