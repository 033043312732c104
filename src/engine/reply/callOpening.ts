import {LlamaText, SpecialTokensText, type Token} from "node-llama-cpp";
import type {ToolCallSyntax} from "../preparedPrompt.js";
import type {ToolDefinition} from "../generationOptions.js";
import type {ReplyGrammars} from "./grammars.js";
import {closingReserve} from "./constrainedJson.js";

/**
 * How a tool call opens in a template's syntax: what the model writes to begin one, and what is
 * forced after it. Qwen's calls open with a token of their own (`<tool_call>`), Llama 3's with text
 * (`{"name": "`), which JSON could begin with too. Some templates open a reply's calls with a
 * section marker before the first one (Mistral's `[TOOL_CALLS][`, then `{"name": "` for each call,
 * `, ` between them and `]` after the last).
 */
export class CallOpening {
    /** What the model writes to open the reply's first call: the opening's first marker token, or its first word. */
    public readonly trigger: string;
    /** Whether that is one token of its own (Qwen's `<tool_call>`) rather than text (Llama 3's `{"name":`). */
    public readonly triggerIsToken: boolean;
    /** The rest of the first call's opening, forced once the model has written the trigger. */
    public readonly afterTrigger: Token[];
    /** What the model writes to open another call after one: the separator, then the call's own trigger. */
    public readonly nextCall: string;
    /** The rest of another call's opening, forced once the model has begun `nextCall`. */
    public readonly afterNextCall: Token[];
    /** What closes the reply's calls where the template has it (Mistral's `]`, DeepSeek's `<｜tool▁calls▁end｜>`), else empty: the model just ends. */
    public readonly sectionEnd: string;
    /**
     * Marker tokens that detokenize to nothing (Mistral's `[TOOL_CALLS]` and `[ARGS]` are control
     * tokens), and the text the shaper must be shown for them: otherwise a call the model opens is never seen.
     */
    public readonly shownTokens: ReadonlyMap<Token, string>;
    /** Tokens another call needs at least (characters bound tokens): opened only when the budget has them. */
    public readonly nextCallCost: number;
    /** The first call's opening: the section prefix, then the call's own. */
    private readonly firstOpening: LlamaText;

    public constructor(grammars: ReplyGrammars, private readonly syntax: ToolCallSyntax, private readonly tools: readonly ToolDefinition[]) {
        // Only a section prefix that begins with a marker token of this vocabulary is the model's to
        // write; layout (a Jinja template's blank lines) or a marker the vocabulary lacks is left out.
        const sectioned = openingMarker(grammars, syntax.sectionPrefix) != null;
        this.firstOpening = sectioned ? LlamaText([syntax.sectionPrefix, syntax.prefix]) : syntax.prefix;
        const first = openingParts(grammars, this.firstOpening);
        const next = openingParts(grammars, syntax.prefix);
        this.trigger = first.trigger;
        this.triggerIsToken = first.token != null;
        this.afterTrigger = first.after;
        this.nextCall = (syntax.betweenCalls?.toString() ?? "") + next.trigger;
        this.afterNextCall = next.after;
        // What closes the list of calls, where the model writes it (text or a marker), not the end of text itself.
        const end = openingParts(grammars, syntax.sectionSuffix);
        const closes = end.token == null || grammars.marker(end.token)?.endsText !== true;
        this.sectionEnd = closes ? end.trigger : "";
        const paramsPrefix = openingParts(grammars, LlamaText(syntax.paramsPrefix));
        this.shownTokens = new Map([first, next, paramsPrefix, ...(closes ? [end] : [])]
            .filter(({hidden}) => hidden === true)
            .map(({token, trigger}) => [token!, trigger]));
        this.nextCallCost = syntax.suffix.toString().length + this.nextCall.length + syntax.prefix.toString().length +
            Math.max(...tools.map((tool) => tool.name.length)) + syntax.paramsPrefix.length +
            Math.max(...tools.map((tool) => closingReserve(tool.parameters)));
    }

    /** The first call's opening up to its name, forced when the request requires a call. */
    public forcedOpening(name = ""): LlamaText {
        // Where the prompt has written the opening already (Functionary's `>>>`), the name comes first.
        const opening = this.syntax.opensReply === true ? LlamaText("") : this.firstOpening;
        // The params prefix is markup (Ministral's `[ARGS]` is a control token), the name is text.
        return name === "" ? opening : LlamaText([opening, name, new SpecialTokensText(numberedParamsPrefix(this.syntax, 0))]);
    }

    /** A first call's whole opening as text, up to its arguments, for each tool (`{"name": "get_weather", "parameters": `). */
    public named(): Array<{text: string, tool: ToolDefinition}> {
        const prefix = this.firstOpening.toString().trimStart();
        return this.tools.map((tool) => ({text: prefix + tool.name + numberedParamsPrefix(this.syntax, 0), tool}));
    }
}

/** The params prefix of the reply's call `index` (0 for its first): the template's, with the call's number where it writes one. */
export function numberedParamsPrefix(syntax: Pick<ToolCallSyntax, "paramsPrefix" | "callIndex">, index: number): string {
    const {paramsPrefix, callIndex} = syntax;
    if (callIndex == null)
        return paramsPrefix;
    return paramsPrefix.slice(0, callIndex.at) + String(callIndex.first + index) + paramsPrefix.slice(callIndex.at + 1);
}

/**
 * What the model writes to begin `opening`, and the tokens forced after it: its first token where
 * that is a marker token of the template's (Qwen's `<tool_call>`, Mistral's `[TOOL_CALLS]`,
 * DeepSeek's `<｜tool▁calls▁begin｜>`), else its first word, which the model writes as text
 * (Llama 3's `{"name":`).
 */
function openingParts(grammars: ReplyGrammars, opening: LlamaText): {trigger: string, token?: Token, hidden?: boolean, after: Token[]} {
    const text = writtenText(opening);
    const marker = openingMarker(grammars, opening);
    const trigger = marker ?? text.trimStart().split(/\s/)[0]!;
    const tokens = grammars.tokenize(trigger);
    const after = grammars.tokenize(text.slice(text.indexOf(trigger) + trigger.length));
    return tokens.length === 1 ? {trigger, token: tokens[0]!, hidden: grammars.marker(tokens[0]!)?.hidden === true, after} : {trigger, after};
}

/** The marker token `opening` begins with, as text, if it begins with one (its first special-text value's first token). */
function openingMarker(grammars: ReplyGrammars, opening: LlamaText): string | null {
    const first = opening.values.find((value) => typeof value === "string" ? value.trim() !== "" : value instanceof SpecialTokensText && value.value.trim() !== "");
    if (!(first instanceof SpecialTokensText))
        return null;
    const value = first.value.trimStart();
    const token = grammars.tokenize(value)[0];
    const marker = token == null ? null : grammars.marker(token);
    return marker != null && value.startsWith(marker.text) ? marker.text : null;
}

/** The markup the model writes, as text: up to a special token such as EOS, which ends the text instead (Mistral's `]</s>`). */
function writtenText(markup: LlamaText): string {
    const end = markup.values.findIndex((value) => typeof value !== "string" && !(value instanceof SpecialTokensText));
    return LlamaText(end < 0 ? markup.values : markup.values.slice(0, end)).toString();
}
