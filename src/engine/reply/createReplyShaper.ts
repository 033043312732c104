import type {GenerationOptions, PreparedPrompt} from "../types.js";
import type {ReplyGrammars} from "./grammars.js";
import {JsonReply} from "./jsonReply.js";
import type {ReplyShaper} from "./replyShaper.js";
import {TextReply} from "./textReply.js";
import {ThoughtReply} from "./thoughtReply.js";
import {ToolCallReply} from "./toolCallReply.js";

/**
 * The shaper for the format a request asked for. A reasoning model's thought is split off replies
 * the model begins freely; a JSON reply or a forced call is constrained from its first token, so
 * the model cannot think first.
 */
export function createReplyShaper(prompt: PreparedPrompt, options: GenerationOptions, grammars: ReplyGrammars): ReplyShaper {
    const shaper = formatShaper(prompt, options, grammars);
    const free = options.format.type !== "json" && shaper.opening.tokens.length === 0;
    return prompt.thought != null && free ? new ThoughtReply(shaper, prompt.thought, options.thinking) : shaper;
}

function formatShaper(prompt: PreparedPrompt, options: GenerationOptions, grammars: ReplyGrammars): ReplyShaper {
    const stops = [...options.stop, ...prompt.stopStrings];
    const {format} = options;
    switch (format.type) {
        case "text":
            return new TextReply(stops);
        case "json":
            return new JsonReply(grammars, format.schema);
        case "toolCalls":
            if (prompt.toolSyntax == null)
                throw new Error("tool calls need a prompt rendered with tools");
            return new ToolCallReply(grammars, prompt.toolSyntax, format, stops);
    }
}
