import {
    LlamaGrammar, LlamaGrammarEvaluationState, LlamaJsonSchemaGrammar, LlamaText, SpecialTokensText, TokenBias, type LlamaModel, type Token
} from "node-llama-cpp";
import type {JsonSchema} from "../types.js";

/** Grammars compiled per model are kept for reuse: agents send the same tools on every turn. */
const maxCachedGrammars = 64;

/** Closing characters of JSON, favoured when a constrained reply must end within its token budget. */
const closers = ["\"", "}", "]"];

/**
 * node-llama-cpp's number rules allow 16-digit exponents ("1e4444444444444444"), which every JSON
 * parser reads as Infinity: not an integer, and not what any schema meant. These keep numbers finite.
 */
const numberRules: Array<[RegExp, string]> = [
    [/^integer-number-rule ::= .*$/m, "integer-number-rule ::= \"-\"? (\"0\" | [1-9] [0-9]{0,15})"],
    [/^fractional-number-rule ::= .*$/m, "fractional-number-rule ::= \"-\"? (\"0\" | [1-9] [0-9]{0,15}) (\".\" [0-9]{1,16})? ([eE] [-+]? [0-9]{1,2})?"]
];

/**
 * The constrained-decoding toolbox of one model: compiled grammars (a fresh evaluation state per
 * use, since a state advances with every token), the bias that steers JSON to a close, and
 * tokenization of forced text.
 */
export class ReplyGrammars {
    private readonly grammars = new Map<string, LlamaGrammar>();
    private readonly closing = new Map<boolean, TokenBias>();
    private bans: TokenBias | null = null;
    private readonly textBans = new Map<string, TokenBias>();

    public constructor(private readonly model: LlamaModel) {}

    /**
     * The bias of every constrained token: bytes that never occur in UTF-8 (C0, C1, F5–FF) are banned.
     * llama.cpp's grammar decodes them as characters anyway, so a random-weight model could write a
     * string whose 4 "characters" every JSON parser reads as 4 replacement characters, past maxLength.
     */
    public constrainedBias(): TokenBias {
        this.bans ??= banTokens(new TokenBias(this.model.tokenizer), invalidUtf8Tokens(this.model));
        return this.bans;
    }

    /** A JSON value matching `schema`; null means any JSON object. */
    public json(schema: JsonSchema | null): LlamaGrammarEvaluationState {
        const resolved: JsonSchema = schema ?? {type: "object", additionalProperties: true};
        return this.state(`json:${JSON.stringify(resolved)}`, () => {
            const grammar = numberRules.reduce(
                (text, [rule, replacement]) => text.replace(rule, replacement),
                new LlamaJsonSchemaGrammar(this.model.llama, resolved as never).grammar);
            return new LlamaGrammar(this.model.llama, {grammar});
        });
    }

    /**
     * One of `choices` followed by `suffix`; with `optional`, nothing at all is also allowed, which
     * leaves the model free to end the reply instead.
     */
    public literal(choices: readonly string[], suffix: string, {optional = false} = {}): LlamaGrammarEvaluationState {
        const alternatives = choices.map(gbnfString).join(" | ");
        const body = `(${alternatives}) ${gbnfString(suffix)}`;
        const grammar = `root ::= ${optional ? `(${body})?` : body}`;
        return this.state(grammar, () => new LlamaGrammar(this.model.llama, {grammar}));
    }

    /** The constrained bias, plus `text` never sampled where it is a single token (a special tag like `<tool_call>`). */
    public banning(text: string): TokenBias {
        let bias = this.textBans.get(text);
        if (bias == null) {
            const tokens = this.tokenize(text);
            bias = banTokens(new TokenBias(this.model.tokenizer), [...invalidUtf8Tokens(this.model), ...(tokens.length === 1 ? tokens : [])]);
            this.textBans.set(text, bias);
        }
        return bias;
    }

    /**
     * A strong preference for single tokens that close strings, objects and arrays. Inside a string
     * only those that start with the closing quote: there `}` is just another character.
     */
    public closingBias(inString: boolean): TokenBias {
        let bias = this.closing.get(inString);
        if (bias == null) {
            bias = banTokens(new TokenBias(this.model.tokenizer), invalidUtf8Tokens(this.model));
            for (const text of closingStrings().filter((candidate) => !inString || candidate.startsWith("\""))) {
                const tokens = this.model.tokenize(text, false, "trimLeadingSpace");
                if (tokens.length === 1)
                    bias.set(tokens[0]!, {logit: 50});
            }
            this.closing.set(inString, bias);
        }
        return bias;
    }

    /** Forced text (template markup, which may contain special tokens) as tokens. */
    public tokenize(text: LlamaText | string): Token[] {
        const value = typeof text === "string" ? LlamaText(new SpecialTokensText(text)) : text;
        return value.tokenize(this.model.tokenizer, "trimLeadingSpace");
    }

    private state(key: string, compile: () => LlamaGrammar): LlamaGrammarEvaluationState {
        let grammar = this.grammars.get(key);
        if (grammar == null) {
            grammar = compile();
            if (this.grammars.size >= maxCachedGrammars)
                this.grammars.delete(this.grammars.keys().next().value!);
        } else
            this.grammars.delete(key);
        this.grammars.set(key, grammar);
        return new LlamaGrammarEvaluationState({model: this.model, grammar});
    }
}

function banTokens(bias: TokenBias, tokens: readonly Token[]): TokenBias {
    for (const token of tokens)
        bias.set(token, "never");
    return bias;
}

/** Tokens holding a byte no UTF-8 text contains, read from the GGUF vocabulary. */
function invalidUtf8Tokens(model: LlamaModel): Token[] {
    const ggml = (model.fileInfo.metadata as {tokenizer?: {ggml?: {model?: string, tokens?: readonly string[]}}}).tokenizer?.ggml;
    const pattern = ggml?.model === "llama"
        // SentencePiece byte fallback: one token per byte, written <0xF5>.
        ? /^<0x(?:C0|C1|F[5-9A-F])>$/i
        : ggml?.model === "gpt2"
            // Byte-level BPE writes byte b (C0, C1, F5–FF) as the character U+00b.
            ? /[\u00C0\u00C1\u00F5-\u00FF]/
            : null;
    if (pattern == null || ggml?.tokens == null)
        return [];
    const tokens: Token[] = [];
    ggml.tokens.forEach((text, id) => {
        if (pattern.test(text))
            tokens.push(id as Token);
    });
    return tokens;
}

/** Every string of one to three closing characters: `"`, `"}`, `}]`, `"}}`… */
function closingStrings(): string[] {
    let level = [""];
    const all: string[] = [];
    for (let length = 1; length <= 3; length++) {
        level = level.flatMap((prefix) => closers.map((closer) => prefix + closer));
        all.push(...level);
    }
    return all;
}

function gbnfString(text: string): string {
    return `"${text.replace(/[\\"]/g, (char) => `\\${char}`).replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")}"`;
}
