import type {BadRequestError} from "../errors.js";

/**
 * Whether a client's JSON Schema is a contract or a hint: the one place that decides what becomes
 * of a keyword constrained decoding cannot enforce.
 *
 * OpenAI enforces a schema only when the caller says `strict: true` (a tool's `function.strict`,
 * `response_format.json_schema.strict`); without it the schema guides the model and nothing refuses
 * it. Coding agents depend on that: MCP servers and Claude Code's tools write `format: "uri"`,
 * `maxLength` in the tens of thousands, patterns with look-arounds, and most never say `strict`.
 * So chatserve does the same:
 * - strict: a keyword the grammar cannot enforce is a 400 naming it (`unsupported_schema_keyword`),
 *   since a looser grammar in silence would hand back JSON the client's own validator rejects;
 * - lenient (the default): each such keyword is enforced as far as the grammar can (a fractional
 *   bound rounded outwards, a pattern kept over a length it cannot intersect with) and otherwise
 *   left out; what is left out is noted, for a debug log line. A schema of which nothing can be
 *   enforced (nesting too deep, alternatives that explode, one llama.cpp cannot compile) becomes
 *   any JSON value, or any object for a tool's parameters.
 * Either way a schema that is malformed or that no value can satisfy stays a 400 `invalid_schema`:
 * that is the client's mistake, not a limit of the grammar.
 *
 * Every wire API (chat completions, Responses, Anthropic Messages) reads its tools' and output
 * formats' `strict` flags through `SchemaStrictness.of`, so the rule holds on every endpoint.
 */
export class SchemaStrictness {
    private constructor(
        public readonly strict: boolean,
        /** Shared by the schemas of one request, so that one log line can say what all of them went without. */
        public readonly ignored: IgnoredKeyword[]
    ) {}

    /** OpenAI's rule for a request's `strict` flag: strict only when it is `true` (absent or null is a hint). */
    public static of(strict: boolean | null | undefined, ignored: IgnoredKeyword[] = []): SchemaStrictness {
        return new SchemaStrictness(strict === true, ignored);
    }

    /** What chatserve's converters did before the rule existed, and what a caller that knows no flag gets. */
    public static strictly(): SchemaStrictness {
        return new SchemaStrictness(true, []);
    }

    /**
     * A keyword (or a whole schema) constrained decoding cannot enforce. Strict: throws `error`.
     * Lenient: notes it and returns, and the caller goes on without it (or without `instead`, where
     * what it leaves out is not what the error names).
     */
    public refuse(error: BadRequestError, instead?: string): void {
        if (this.strict)
            throw error;
        this.ignored.push({param: instead ?? error.param ?? "", reason: error.message});
    }
}

/** A keyword a lenient reading went without: where, and the 400's message strict mode would have sent. */
export type IgnoredKeyword = {param: string, reason: string};

/** Where one schema of a reply format came from, and whether its caller asked for it to be strict. */
export type SchemaOrigin = {param: string, strict: boolean};

/** The origins of a reply format's schemas (conversation/replyPlan.ts makes them; replyGrammars.ts reads them). */
export type SchemaOrigins = {
    /** One per tool of the format, in the same order. */
    tools: readonly SchemaOrigin[],
    /** The JSON reply's schema: a `json` format's, or the `answer` beside tools. */
    json: SchemaOrigin | null,
    /** Everything the lenient schemas of the request went without. */
    ignored: IgnoredKeyword[]
};
