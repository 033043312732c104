import {z} from "zod";
import type {OutputFormat} from "../../conversation/conversation.js";
import {BadRequestError} from "../../errors.js";

/**
 * The raw constraints clients of the OpenAI-shaped servers send, under their own names, on chat and
 * legacy completions (and on the Responses API, whose body llama-server passes through to chat's):
 * llama-server's `grammar` (GBNF), vLLM's `structured_outputs` and the older `guided_*` fields it
 * replaced. chatserve extensions to OpenAI's bodies: OpenAI itself has none.
 */
const jsonSchema = z.union([z.record(z.string(), z.unknown()), z.string()]);
const choices = z.array(z.string()).min(1, "a choice needs at least one text").max(10_000, "at most 10,000 choices");

export const constraintFields = {
    grammar: z.string().nullish(),
    structured_outputs: z.object({
        json: jsonSchema.nullish(),
        regex: z.string().nullish(),
        choice: choices.nullish(),
        grammar: z.string().nullish(),
        json_object: z.boolean().nullish(),
        /** vLLM's tag-triggered structures: not done here, refused rather than dropped. */
        structural_tag: z.unknown().optional()
        // vLLM's backend switches (disable_fallback, whitespace_pattern, …) are stripped: they choose how, not what.
    }).nullish(),
    guided_json: jsonSchema.nullish(),
    guided_regex: z.string().nullish(),
    guided_choice: choices.nullish(),
    guided_grammar: z.string().nullish()
};

type ConstraintFields = {[K in keyof typeof constraintFields]?: z.infer<(typeof constraintFields)[K]>};

/**
 * The one constraint a request sets, as the conversation's output format, or null for none. Two
 * constraints, or one beside `response_format` (or tools: `hasTools`), are a 400: which would win
 * is not the client's to guess. A JSON schema (`structured_outputs.json`, `guided_json`) is read
 * strictly, as `strict: true` reads OpenAI's: vLLM refuses what it cannot enforce, too.
 */
export function toConstraintOutput(request: ConstraintFields, {responseFormat, hasTools, formatField = "response_format"}: {
    responseFormat: boolean, hasTools: boolean,
    /** Where the API takes its own output format (the Responses API's is `text.format`), for the 400. */
    formatField?: string
}): OutputFormat | null {
    const structured = request.structured_outputs;
    if (structured?.structural_tag != null)
        throw new BadRequestError("structured_outputs.structural_tag: vLLM's structural tags are not supported by chatserve yet.",
            {param: "structured_outputs.structural_tag", code: "unsupported_parameter"});
    const set: Array<{param: string, output: OutputFormat}> = [];
    const add = (param: string, value: unknown, output: (param: string) => OutputFormat) => {
        // llama-server reads an empty grammar as none (its web UI sends one).
        if (value != null && value !== "")
            set.push({param, output: output(param)});
    };
    const gbnf = (grammar: string) => (path: string): OutputFormat => ({type: "grammar", constraint: {kind: "gbnf", grammar}, path});
    const regex = (pattern: string) => (path: string): OutputFormat => ({type: "grammar", constraint: {kind: "regex", pattern}, path});
    const choice = (texts: string[]) => (path: string): OutputFormat => ({type: "grammar", constraint: {kind: "choice", choices: texts}, path});
    const json = (schema: Record<string, unknown> | string | null) => (path: string): OutputFormat =>
        ({type: "json", schema: schema == null ? null : parsedSchema(schema, path), strict: true, path, schemaPath: path});

    add("grammar", request.grammar, gbnf(request.grammar!));
    add("structured_outputs.grammar", structured?.grammar, gbnf(structured?.grammar!));
    add("structured_outputs.regex", structured?.regex, regex(structured?.regex!));
    add("structured_outputs.choice", structured?.choice, choice(structured?.choice!));
    add("structured_outputs.json", structured?.json, json(structured?.json!));
    add("structured_outputs.json_object", structured?.json_object === true ? true : null, json(null));
    add("guided_grammar", request.guided_grammar, gbnf(request.guided_grammar!));
    add("guided_regex", request.guided_regex, regex(request.guided_regex!));
    add("guided_choice", request.guided_choice, choice(request.guided_choice!));
    add("guided_json", request.guided_json, json(request.guided_json!));

    if (set.length === 0)
        return null;
    const [first, second] = set;
    if (second != null)
        throw new BadRequestError(`Invalid '${second.param}': only one constraint may be set, and '${first!.param}' is set too.`,
            {param: second.param, code: "invalid_value"});
    if (responseFormat)
        throw new BadRequestError(`Invalid '${first!.param}': it cannot be combined with '${formatField}'; send one of them.`,
            {param: first!.param, code: "invalid_value"});
    if (hasTools)
        throw new BadRequestError(`Invalid '${first!.param}': a constraint of the client's own cannot be combined with tools.`,
            {param: first!.param, code: "invalid_value"});
    return first!.output;
}

/** vLLM takes a schema as an object or as its JSON text. */
function parsedSchema(schema: Record<string, unknown> | string, param: string): Record<string, unknown> {
    if (typeof schema !== "string")
        return schema;
    try {
        const parsed: unknown = JSON.parse(schema);
        if (parsed != null && typeof parsed === "object" && !Array.isArray(parsed))
            return parsed as Record<string, unknown>;
    } catch {
        // answered below
    }
    throw new BadRequestError(`Invalid '${param}': a JSON schema must be an object, or the JSON text of one.`, {param, code: "invalid_value"});
}
