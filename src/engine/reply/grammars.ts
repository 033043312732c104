import {
    LlamaGrammar, LlamaGrammarEvaluationState, LlamaJsonSchemaGrammar, LlamaText, SpecialTokensText, type LlamaModel, type Token, type TokenBias
} from "node-llama-cpp";
import type {JsonSchema} from "../generationOptions.js";
import {gbnfClass, gbnfString, valueRule} from "./gbnfText.js";
import {markCustomRules, withCustomRules} from "./customRules.js";
import {withFiniteNumbers} from "./numberRange.js";
import {withOptionalProperties} from "./optionalProperties.js";
import {textUntilRules} from "./textUntil.js";
import {ReplyBiases} from "./replyBiases.js";

/** Grammars compiled per model are kept for reuse: agents send the same tools on every turn. */
const maxCachedGrammars = 64;

/** The start rule of `jsonOr`'s grammars (a name node-llama-cpp's JSON grammars never use). */
const eitherRule = "chatserve-call-or-json";

/** The start rule of `jsonThen`'s grammars. */
const thenRule = "chatserve-json-then";

/**
 * The constrained-decoding toolbox of one model: compiled grammars (a fresh evaluation state per
 * use, since a state advances with every token), the token biases (replyBiases.ts builds them), and
 * tokenization of forced text.
 */
export class ReplyGrammars {
    private readonly grammars = new Map<string, LlamaGrammar>();
    private readonly biases: ReplyBiases;

    public constructor(private readonly model: LlamaModel) {
        this.biases = new ReplyBiases(model, (text) => this.tokenize(text));
    }

    /** The bias of every constrained token: the bytes that never occur in UTF-8 banned. */
    public constrainedBias(): TokenBias {
        return this.biases.constrained();
    }

    /** The bias for the next constrained token: `bias` (else the constrained one), and what may not follow `previous`'s last byte banned. */
    public nextBias(bias: TokenBias | undefined, previous: Token | undefined): TokenBias {
        return this.biases.next(bias, previous);
    }

    /** A JSON value matching `schema`; null means any JSON object. */
    public json(schema: JsonSchema | null): LlamaGrammarEvaluationState {
        return new LlamaGrammarEvaluationState({model: this.model, grammar: this.compileJson(schema)});
    }

    /** Builds (or finds) the grammar for `schema`; throws when llama.cpp cannot parse it. */
    public compileJson(schema: JsonSchema | null): LlamaGrammar {
        const resolved: JsonSchema = schema ?? {type: "object", additionalProperties: true};
        return this.compiled(`json:${JSON.stringify(resolved)}`, () => {
            const {schema: marked, rules, objects} = markCustomRules(resolved);
            const grammar = withFiniteNumbers(new LlamaJsonSchemaGrammar(this.model.llama, marked as never).grammar);
            return new LlamaGrammar(this.model.llama, {grammar: withCustomRules(withOptionalProperties(grammar, objects), rules)});
        });
    }

    /** A client's own GBNF (root rule `root`), compiled once and kept like the others; throws when llama.cpp cannot parse it. */
    public compileText(grammar: string): LlamaGrammar {
        return this.compiled(`text:${grammar}`, () => new LlamaGrammar(this.model.llama, {grammar}));
    }

    /** Text matching a client's own GBNF (`grammar`, or a regex or choice written as GBNF). */
    public text(grammar: string): LlamaGrammarEvaluationState {
        return new LlamaGrammarEvaluationState({model: this.model, grammar: this.compileText(grammar)});
    }

    /**
     * A JSON value matching `schema`, or else the opening of a tool call: one token (a special one
     * such as Qwen's `<tool_call>`) or one of `texts` (Llama 3's `{"name": "get_weather", "parameters": `,
     * one per tool, which JSON could begin with too). Once past an opening, the state is complete and
     * the caller goes on with the call's grammars.
     */
    public jsonOr(schema: JsonSchema | null, opening: {token: Token} | {texts: readonly string[]}): LlamaGrammarEvaluationState {
        const json = this.compileJson(schema);
        const alternative = "token" in opening ? `<[${opening.token}]>` : `(${opening.texts.map(gbnfString).join(" | ")})`;
        const grammar = `${json.grammar}\n${eitherRule} ::= ${alternative} | ${json.rootRuleName}\n`;
        return new LlamaGrammarEvaluationState({
            model: this.model,
            grammar: this.compiled(grammar, () => new LlamaGrammar(this.model.llama, {grammar, rootRuleName: eitherRule}))
        });
    }

    /**
     * A JSON value matching `schema`, then `end` (the markup after an argument's value in a
     * per-argument call syntax such as Qwen3-Coder's `\n</parameter>`), or one of several.
     */
    public jsonThen(schema: JsonSchema, end: string | readonly string[]): LlamaGrammarEvaluationState {
        const json = this.compileJson(schema);
        // Several ends: what may follow a value whose syntax has no closing markup (Gemma 4's `,` or `}`).
        const after = typeof end === "string" ? gbnfString(end) : `(${end.map(gbnfString).join(" | ")})`;
        const grammar = `${json.grammar}\n${thenRule} ::= (${valueRule(json.grammar, json.rootRuleName)}) ${after}\n`;
        return new LlamaGrammarEvaluationState({
            model: this.model,
            grammar: this.compiled(grammar, () => new LlamaGrammar(this.model.llama, {grammar, rootRuleName: thenRule}))
        });
    }

    /**
     * Raw text, then `end`: a string argument as per-argument call syntaxes write it. The text may
     * hold anything but `end` itself (a `</div>` inside Qwen3-Coder's `<parameter=content>`), so
     * the first `end` is the value's end, as the family's parsers read it. With a length bound the
     * text cannot hold `end`'s first character at all.
     */
    public rawText(end: string, {minLength = 0, maxLength}: {minLength?: number, maxLength?: number} = {}): LlamaGrammarEvaluationState {
        const [a] = [...end.trim()];
        // With a length bound (a schema's minLength / maxLength) each character is one repetition, so `a` is left out altogether;
        // without one, any text up to the first `end` (textUntil.ts).
        const bounded = minLength > 0 || maxLength != null;
        const char = a == null ? "[^\\x00]" : `[^${gbnfClass(a)}]`;
        const grammar = bounded ? `root ::= ${char}{${minLength},${maxLength ?? ""}} ${gbnfString(end)}`
            : end === "" ? `root ::= ${char}*` : `root ::= raw0\n${textUntilRules(end, "raw", gbnfString, gbnfClass)}`;
        return new LlamaGrammarEvaluationState({model: this.model, grammar: this.compiled(grammar, () => new LlamaGrammar(this.model.llama, {grammar}))});
    }

    /**
     * One of `choices` followed by `suffix`; with `optional`, nothing at all is also allowed, which
     * leaves the model free to end the reply instead.
     */
    public literal(choices: readonly string[], suffix: string, {optional = false} = {}): LlamaGrammarEvaluationState {
        const alternatives = choices.map(gbnfString).join(" | ");
        const body = `(${alternatives}) ${gbnfString(suffix)}`;
        const grammar = `root ::= ${optional ? `(${body})?` : body}`;
        return new LlamaGrammarEvaluationState({model: this.model, grammar: this.compiled(grammar, () => new LlamaGrammar(this.model.llama, {grammar}))});
    }

    /** The constrained bias, plus `text` never sampled where it is a single token (a special tag like `<tool_call>`). */
    public banning(text: string): TokenBias {
        return this.biases.banning(text);
    }

    /** A strong preference for single tokens that close JSON's strings, objects and arrays (inside a string, only the quote's). */
    public closingBias(inString: boolean): TokenBias {
        return this.biases.closing(inString);
    }

    /**
     * A template's marker token (a control or added token, as Qwen's `<tool_call>` and Mistral's
     * `[TOOL_CALLS]` are): its text, and whether it is hidden from a reply's text (control tokens
     * detokenize to nothing), and whether it ends the text (end of turn). Null for an ordinary token.
     */
    public marker(token: Token): {text: string, hidden: boolean, endsText: boolean} | null {
        const attributes = this.model.getTokenAttributes(token);
        if (!attributes.control && !attributes.userDefined)
            return null;
        return {
            text: this.model.detokenize([token], true), hidden: this.model.detokenize([token], false) === "", endsText: this.model.isEogToken(token)
        };
    }

    /** Forced text (template markup, which may contain special tokens) as tokens. */
    public tokenize(text: LlamaText | string): Token[] {
        const value = typeof text === "string" ? LlamaText(new SpecialTokensText(text)) : text;
        return value.tokenize(this.model.tokenizer, "trimLeadingSpace");
    }

    /** A compiled grammar, most recently used kept last so the oldest is dropped first. */
    private compiled(key: string, compile: () => LlamaGrammar): LlamaGrammar {
        let grammar = this.grammars.get(key);
        if (grammar == null) {
            grammar = compile();
            if (this.grammars.size >= maxCachedGrammars)
                this.grammars.delete(this.grammars.keys().next().value!);
        } else
            this.grammars.delete(key);
        this.grammars.set(key, grammar);
        return grammar;
    }
}
