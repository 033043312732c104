import type {Token} from "node-llama-cpp";
import type {ToolCallSyntax, ToolDefinition} from "../types.js";
import type {ReplyGrammars} from "./grammars.js";
import {closingReserve} from "./constrainedJson.js";

/**
 * How a tool call opens in a template's syntax: what the model writes to begin one, and what is
 * forced after it. Qwen's calls open with a token of their own (`<tool_call>`), Llama 3's with text
 * (`{"name": "`), which JSON could begin with too.
 */
export class CallOpening {
    /** What the model writes to open a call: the first word of the template's call prefix. */
    public readonly trigger: string;
    /** Whether that is one token of its own (Qwen's `<tool_call>`) rather than text (Llama 3's `{"name":`). */
    public readonly triggerIsToken: boolean;
    /** The rest of a call's opening, forced once the model has written the trigger. */
    public readonly afterTrigger: Token[];
    /** What the model writes to open another call after one: the separator, then the trigger. */
    public readonly nextCall: string;
    /** Tokens another call needs at least (characters bound tokens): opened only when the budget has them. */
    public readonly nextCallCost: number;

    public constructor(grammars: ReplyGrammars, private readonly syntax: ToolCallSyntax, private readonly tools: readonly ToolDefinition[]) {
        const prefix = syntax.prefix.toString();
        this.trigger = prefix.trimStart().split(/\s/)[0]!;
        this.triggerIsToken = grammars.tokenize(this.trigger).length === 1;
        this.afterTrigger = grammars.tokenize(prefix.slice(prefix.indexOf(this.trigger) + this.trigger.length));
        this.nextCall = (syntax.betweenCalls?.toString() ?? "") + this.trigger;
        this.nextCallCost = syntax.suffix.toString().length + this.nextCall.length + prefix.length +
            Math.max(...tools.map((tool) => tool.name.length)) + syntax.paramsPrefix.length +
            Math.max(...tools.map((tool) => closingReserve(tool.parameters)));
    }

    /** A call's whole opening as text, up to its arguments, for each tool (`{"name": "get_weather", "parameters": `). */
    public named(): Array<{text: string, tool: ToolDefinition}> {
        const prefix = this.syntax.prefix.toString().trimStart();
        return this.tools.map((tool) => ({text: prefix + tool.name + this.syntax.paramsPrefix, tool}));
    }
}
