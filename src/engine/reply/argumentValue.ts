import type {LlamaGrammarEvaluationState} from "node-llama-cpp";
import type {JsonSchema} from "../generationOptions.js";
import type {ReplyGrammars} from "./grammars.js";
import {gbnfString} from "./gbnfText.js";
import {notationGrammar} from "./notationGrammar.js";
import {notationToJson} from "./notationJson.js";
import {isJson, partialSuffixLength} from "./partialText.js";

/**
 * One argument's value in a per-argument call syntax (reply/argumentCallReply.ts): a string
 * property's value is raw text up to the markup that closes it (Qwen3-Coder's `\n</parameter>`,
 * Gemma's `<|"|>`), which it cannot contain; any other value is JSON under the property's schema,
 * followed by that markup. It is handed on as the JSON the call's arguments are made of: a raw
 * string quoted and escaped, piece by piece as it streams, holding back what could be the closing
 * markup.
 */
export class ArgumentValue {
    public readonly grammar: LlamaGrammarEvaluationState;
    public readonly raw: boolean;
    private written = "";
    /** Characters of `written` already handed on. */
    private emitted = 0;
    /** Characters of JSON handed on for a value in the syntax's notation. */
    private handed = 0;
    /** How far the search for an open value's end has looked. */
    private checked = 0;
    private done = false;
    private quoted = false;

    /**
     * `end`: the markup after the value, which the grammar makes the model write. Where a JSON value
     * has none (Gemma 4's `n:7,`), `follows` are what may come next: the value ends where one
     * begins, which is left to the call's next markup. `quote`: the syntax's own string quote, which
     * makes every value not a raw string one in its notation.
     */
    public constructor(
        grammars: ReplyGrammars, schema: JsonSchema | undefined, private readonly end: string, private readonly follows: readonly string[] = [],
        private readonly quote = ""
    ) {
        this.raw = isRawString(schema);
        const choices = this.raw ? stringChoices(schema) : null;
        const json = schema ?? {type: "object", additionalProperties: true} as JsonSchema;
        const ends = this.open ? follows.map((follow) => follow.slice(0, 1)) : [end];
        this.grammar = choices != null ? grammars.literal(choices, end) : this.raw ? grammars.rawText(end, lengthBounds(schema))
            : quote !== "" ? grammars.text(notationThen(json, quote, ends))
            : grammars.jsonThen(json, this.open ? ends : end);
    }

    /** A JSON value with no closing markup of its own. */
    private get open(): boolean {
        return !this.raw && this.end === "" && this.follows.length > 0;
    }

    public get isComplete(): boolean {
        return this.done;
    }

    /**
     * JSON text to hand on for `text`, and what came after the value's closing markup once it has.
     * A JSON value followed by layout is complete (JSON's grammar lets a model write blank lines
     * after it for ever): the rest of the closing markup is then `forced`.
     */
    public push(text: string): {json: string, rest: string, forced?: string} {
        if (this.done)
            return {json: "", rest: text};
        this.written += text;
        const value = this.written.trimEnd();
        if (!this.raw && value.length < this.written.length && this.isWhole(value)) {
            this.done = true;
            return {json: this.hand(value.length), rest: "", forced: this.end.slice(partialSuffixLength(this.written, this.end))};
        }
        if (this.open) {
            // The first place where the text so far is JSON and what follows begins the call's next markup.
            // Places checked by an earlier push stay as they were: a prefix's being whole does not change as the text grows.
            for (let at = Math.max(1, this.checked); at < this.written.length; at++) {
                if (this.follows.some((follow) => follow.startsWith(this.written.slice(at, at + 1))) && this.isWhole(this.written.slice(0, at))) {
                    this.done = true;
                    return {json: this.hand(at), rest: this.written.slice(at)};
                }
            }
            this.checked = this.written.length;
            return {json: this.hand(this.written.length), rest: ""};
        }
        const at = this.valueEnd();
        if (at >= 0) {
            this.done = true;
            const rest = this.written.slice(at + this.end.length);
            return {json: this.hand(at) + (this.raw ? "\"" : ""), rest};
        }
        return {json: this.hand(this.written.length - partialSuffixLength(this.written, this.end)), rest: ""};
    }

    /** The model stopped inside the value: what it wrote, closed as well as a string can be (a number or object may stay cut). */
    public close(): string {
        if (this.done)
            return "";
        this.done = true;
        return this.hand(this.written.length) + (this.raw ? "\"" : "");
    }

    /** Whether `text` is one whole value, in JSON or the syntax's notation. */
    private isWhole(text: string): boolean {
        return this.quote === "" ? isJson(text) : notationToJson(text, this.quote).complete;
    }

    /** The value's text up to `to`, from where the last piece ended, as JSON (the opening quote with a raw string's first piece). */
    private hand(to: number): string {
        if (!this.raw && this.quote !== "") {
            // The notation's JSON so far, less what was handed on: the text's JSON only ever grows.
            const json = notationToJson(this.written.slice(0, Math.max(to, this.emitted)), this.quote).json;
            const piece = json.slice(this.handed);
            this.emitted = Math.max(to, this.emitted);
            this.handed = json.length;
            return piece;
        }
        const piece = this.written.slice(this.emitted, Math.max(to, this.emitted));
        this.emitted = Math.max(to, this.emitted);
        if (!this.raw)
            return piece;
        const quote = this.quoted ? "" : "\"";
        this.quoted = true;
        return quote + JSON.stringify(piece).slice(1, -1);
    }

    /** Where the closing markup begins: its first place for a raw string (which cannot contain it), else the first after valid JSON. */
    private valueEnd(): number {
        for (let at = this.written.indexOf(this.end); at >= 0; at = this.written.indexOf(this.end, at + 1)) {
            if (this.raw || this.isWhole(this.written.slice(0, at)))
                return at;
        }
        return -1;
    }
}

/** GBNF: a value of `schema` in the notation whose strings are between `quote`s, then one of `ends`. */
function notationThen(schema: JsonSchema, quote: string, ends: readonly string[]): string {
    const {rules, value} = notationGrammar(schema, quote);
    return `root ::= ${value} (${ends.map(gbnfString).join(" | ")})\n${rules}`;
}

/** Whether the property's value is written raw, as templates write a string (`value | string`); a union or any other type is JSON. */
export function isRawString(schema: JsonSchema | undefined): boolean {
    return schema != null && typeof schema === "object" && "type" in schema && schema.type === "string";
}

/** A string enum's (or const's) values, the only raw texts allowed. */
function stringChoices(schema: JsonSchema | undefined): string[] | null {
    const value = schema as {enum?: unknown[], const?: unknown};
    const choices = value.enum ?? ("const" in value ? [value.const] : null);
    return choices != null && choices.every((choice) => typeof choice === "string") ? choices as string[] : null;
}

/** A string schema's length bounds, which the raw text's grammar keeps (a pattern or format is not checked on raw text). */
function lengthBounds(schema: JsonSchema | undefined): {minLength?: number, maxLength?: number} {
    const {minLength, maxLength} = schema as {minLength?: number, maxLength?: number};
    return {...(typeof minLength === "number" ? {minLength} : {}), ...(typeof maxLength === "number" ? {maxLength} : {})};
}
