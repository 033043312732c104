import type {PreparedPrompt} from "../preparedPrompt.js";
import type {GenerationOptions, ReplyFormat} from "../generationOptions.js";
import {ArgumentCallReply} from "./argumentCallReply.js";
import {CallOrAnswerReply} from "./callOrAnswerReply.js";
import {GrammarReply} from "./grammarReply.js";
import type {ReplyGrammars} from "./grammars.js";
import {HarmonyReply} from "./harmonyReply.js";
import {JsonReply} from "./jsonReply.js";
import {OpenedReply} from "./openedReply.js";
import type {ReplyShaper} from "./replyShaper.js";
import {TextReply} from "./textReply.js";
import {ThoughtReply} from "./thoughtReply.js";
import {ToolCallReply} from "./toolCallReply.js";

/**
 * The shaper for the format a request asked for; a reasoning model's thought is split off replies
 * it begins freely, and a Harmony model's (GPT-OSS's) channels are read there.
 */
export function createReplyShaper(prompt: PreparedPrompt, options: GenerationOptions, grammars: ReplyGrammars): ReplyShaper {
    const shaper = formatShaper(prompt, options, grammars);
    // A Harmony model's constrained answer (JSON, a grammar) is its final channel's message.
    if (prompt.harmony === true && (options.format.type === "json" || options.format.type === "grammar"))
        return new OpenedReply(shaper, grammars.tokenize("<|channel|>final<|message|>"));
    if (!beginsFreely(options.format))
        return shaper;
    if (prompt.harmony === true)
        return new HarmonyReply(shaper, grammars);
    return prompt.thought != null ? new ThoughtReply(shaper, prompt.thought) : shaper;
}

/**
 * Whether the model begins its reply as it likes. A JSON reply, a required or named call, and the
 * choice between calls and a JSON answer are constrained from their first token, so only these
 * replies can begin with a thought.
 */
export function beginsFreely(format: ReplyFormat): boolean {
    return format.type === "text" || (format.type === "toolCalls" && (format.choice === "auto" || format.choice === "none") && format.answer == null);
}

function formatShaper(prompt: PreparedPrompt, options: GenerationOptions, grammars: ReplyGrammars): ReplyShaper {
    const stops = [...options.stop, ...prompt.stopStrings];
    const {format} = options;
    switch (format.type) {
        case "text":
            return new TextReply(stops);
        case "json":
            return new JsonReply(grammars, format.schema);
        case "grammar":
            return new GrammarReply(grammars, format.grammar);
        case "toolCalls": {
            if (prompt.toolSyntax == null)
                throw new Error("tool calls need a prompt rendered with tools");
            // Per-argument markup (Qwen3-Coder, GLM, MiniMax): a JSON answer beside its calls is left unconstrained there.
            if (prompt.toolSyntax.kind === "arguments")
                return new ArgumentCallReply(grammars, prompt.toolSyntax, format, stops);
            const calls = new ToolCallReply(grammars, prompt.toolSyntax, format, stops);
            return format.answer != null && format.choice === "auto" ? new CallOrAnswerReply(grammars, calls, format.answer.schema) : calls;
        }
    }
}
