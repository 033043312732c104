import {TokenBias, type LlamaModel, type Token} from "node-llama-cpp";
import {VocabularyBytes} from "./vocabularyBytes.js";

/** Closing characters of JSON, favoured when a constrained reply must end within its token budget. */
const closers = ["\"", "}", "]"];

/**
 * The token biases one model's constrained replies sample under: the bans that keep a grammar's
 * text valid UTF-8, a tag's token banned, and the pull towards closing JSON. Each is built once per
 * purpose and kept, since the sampler asks for one at every step (grammars.ts hands them out).
 */
export class ReplyBiases {
    /** Token biases by purpose; each starts from the invalid-UTF-8 bans. */
    private readonly biases = new Map<string, TokenBias>();
    private readonly keys = new WeakMap<TokenBias, string>();
    private readonly additions = new Map<string, (bias: TokenBias) => void>();
    private vocabularyBytes: VocabularyBytes | null = null;

    public constructor(
        private readonly model: LlamaModel,
        /** Forced text (template markup, special tokens included) as tokens: how `banning` finds a tag's token. */
        private readonly tokenize: (text: string) => Token[]
    ) {}

    /**
     * The bias of every constrained token: bytes that never occur in UTF-8 (C0, C1, F5–FF) are banned.
     * llama.cpp's grammar decodes them as characters anyway, so a random-weight model could write a
     * string whose 4 "characters" every JSON parser reads as 4 replacement characters, past maxLength.
     */
    public constrained(): TokenBias {
        return this.bias("constrained", () => {});
    }

    /**
     * The bias for the next constrained token: `bias` (the shaper's, else the constrained one) and,
     * after a token that ends in a lead byte whose next byte has a narrower range (E0, ED, F0, F4),
     * the continuation bytes outside that range banned too: llama.cpp's grammar would take
     * E0 90 9A as one character, which decodes as three U+FFFD. Checked every step, so only a map
     * lookup until such a byte comes.
     */
    public next(bias: TokenBias | undefined, previous: Token | undefined): TokenBias {
        const base = bias ?? this.constrained();
        const lead = this.bytes().narrowLeadAtEnd(previous);
        const key = this.keys.get(base);
        if (lead == null || key == null)
            return base;
        return this.bias(`${key}|after:${lead}`, (combined) => {
            this.additions.get(key)!(combined);
            for (const token of this.bytes().barredAfterLead(lead))
                combined.set(token, "never");
        });
    }

    /** The constrained bias, plus `text` never sampled where it is a single token (a special tag like `<tool_call>`). */
    public banning(text: string): TokenBias {
        return this.bias(`ban:${text}`, (bias) => {
            const tokens = this.tokenize(text);
            if (tokens.length === 1)
                bias.set(tokens[0]!, "never");
        });
    }

    /**
     * A strong preference for single tokens that close strings, objects and arrays. Inside a string
     * only those that start with the closing quote: there `}` is just another character.
     */
    public closing(inString: boolean): TokenBias {
        return this.bias(`closing:${inString}`, (bias) => {
            for (const text of closingStrings().filter((candidate) => !inString || candidate.startsWith("\""))) {
                const tokens = this.model.tokenize(text, false, "trimLeadingSpace");
                if (tokens.length === 1)
                    bias.set(tokens[0]!, {logit: 50});
            }
        });
    }

    /** The vocabulary is scanned once per model, not once per bias. */
    private bytes(): VocabularyBytes {
        this.vocabularyBytes ??= VocabularyBytes.of(this.model);
        return this.vocabularyBytes;
    }

    private bias(key: string, add: (bias: TokenBias) => void): TokenBias {
        let bias = this.biases.get(key);
        if (bias == null) {
            bias = new TokenBias(this.model.tokenizer);
            for (const token of this.bytes().invalid)
                bias.set(token, "never");
            add(bias);
            this.biases.set(key, bias);
            // What it was built from, so `next` can build it again with more bans.
            this.keys.set(bias, key);
            this.additions.set(key, add);
        }
        return bias;
    }
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
