import type {Token} from "node-llama-cpp";
import type {ArgumentCallSyntax} from "../preparedPrompt.js";
import type {JsonSchema, ToolDefinition} from "../generationOptions.js";
import type {ReplyGrammars} from "./grammars.js";

/** A key's whole markup, up to its value (Gemma's string quote included), or the call's end (`key` null). */
export type KeyChoice = {text: string, key: string | null};

/**
 * One tool's arguments in a per-argument call syntax (reply/argumentCallReply.ts): which keys may
 * come next and in what markup, what ends each value and what may follow it. A key is written at
 * most once, and the call closes only once the required keys are there.
 */
export class ToolArguments {
    private readonly properties: Record<string, JsonSchema>;
    private readonly required: string[];

    public constructor(private readonly syntax: ArgumentCallSyntax, tool: ToolDefinition) {
        const parameters = tool.parameters as {properties?: Record<string, JsonSchema>, required?: string[]};
        this.properties = parameters.properties ?? {};
        this.required = (parameters.required ?? []).filter((key) => key in this.properties);
    }

    public schema(key: string): JsonSchema | undefined {
        return this.properties[key];
    }

    /** What the model may write after the keys `written`: another key's markup, or the call's end. */
    public keyChoices(written: readonly string[]): KeyChoice[] {
        const {keyPrefix, keySuffix, separator, stringOpen, callSuffix} = this.syntax;
        const lead = written.length === 0 ? "" : separator;
        return [
            ...this.left(written).map((key) => ({text: lead + keyPrefix + key + keySuffix + (this.quoted(key) ? stringOpen : ""), key})),
            ...(this.complete(written) ? [{text: callSuffix, key: null}] : [])
        ];
    }

    /** What may follow the value of the last of `written`: another key while any is left, the call's end once the required keys are there. */
    public follows(written: readonly string[]): string[] {
        const {separator, keyPrefix, callSuffix} = this.syntax;
        return [...(this.left(written).length > 0 ? [separator + keyPrefix] : []), ...(this.complete(written) ? [callSuffix] : [])]
            .filter((follow) => follow !== "");
    }

    /** What closes the value of `key`: a raw string's closing quote (Gemma's), then the value's own markup. */
    public valueEnd(key: string): string {
        return (this.quoted(key) ? this.syntax.stringClose : "") + this.syntax.valueSuffix;
    }

    private quoted(key: string): boolean {
        return (this.properties[key] as {type?: unknown} | undefined)?.type === "string";
    }

    private left(written: readonly string[]): string[] {
        return Object.keys(this.properties).filter((key) => !written.includes(key));
    }

    private complete(written: readonly string[]): boolean {
        return this.required.every((key) => written.includes(key));
    }
}

/** Tokens another call needs at least (characters bound tokens): its markup, a name, and each required key with a short value. */
export function nextCallCost(syntax: ArgumentCallSyntax, tools: readonly ToolDefinition[]): number {
    const {betweenCalls, prefix, nameSuffix, separator, keyPrefix, keySuffix, valueSuffix, callSuffix} = syntax;
    const perKey = separator.length + keyPrefix.length + keySuffix.length + valueSuffix.length + 8;
    return Math.max(...tools.map((tool) => tool.name.length + perKey * ((tool.parameters as {required?: string[]}).required?.length ?? 0))) +
        (betweenCalls ?? "").length + prefix.length + nameSuffix.length + callSuffix.length;
}

/**
 * The syntax's marker tokens that detokenize to nothing (control tokens, as `</parameter>` is in
 * some GGUFs), with the text the shaper must be shown for them: a key or value is never seen to end otherwise.
 */
export function hiddenMarkers(syntax: ArgumentCallSyntax, grammars: ReplyGrammars): Map<Token, string> {
    const {kind: _kind, betweenCalls, ...markup} = syntax;
    return new Map([...Object.values(markup), betweenCalls ?? ""].flatMap((text) => grammars.tokenize(text))
        .map((token) => [token, grammars.marker(token)] as const)
        .filter(([, marker]) => marker?.hidden === true && !marker.endsText)
        .map(([token, marker]) => [token, marker!.text]));
}
