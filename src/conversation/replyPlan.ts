import type {JsonSchema, ReplyFormat, ToolDefinition} from "../engine/generationOptions.js";
import {BadRequestError} from "../errors.js";
import type {Conversation, Tool} from "./conversation.js";
import {toConstrainedSchema} from "../json-schema/constrainedSchema.js";
import {toGrammarFormat} from "./textConstraint.js";
import {SchemaStrictness, type IgnoredKeyword, type SchemaOrigins} from "../json-schema/schemaStrictness.js";

/**
 * What a request asks the reply to be, whether only a model whose template renders tools can give
 * it, and where its schemas came from (replyGrammars.ts compiles them by the same strictness).
 */
export type ReplyPlan = {format: ReplyFormat, needsToolSupport: boolean, schemas: SchemaOrigins};

/**
 * The conversation's tools, tool choice, parallel calls and output format → the reply format the
 * engine enforces. Every combination that cannot be honoured exactly is a 400 here, before the
 * model is touched; none is quietly downgraded (`tool_choice: "required"` never becomes "auto").
 * Schemas are hints unless `strict: true` says otherwise (json-schema/schemaStrictness.ts).
 */
export function toReplyPlan(conversation: Pick<Conversation, "tools" | "toolChoice" | "parallelToolCalls" | "output">): ReplyPlan {
    const ignored: IgnoredKeyword[] = [];
    const tools = conversation.tools.map((tool) => toToolDefinition(tool, ignored));
    const duplicate = tools.find((tool, index) => tools.findIndex((other) => other.name === tool.name) !== index);
    if (duplicate != null)
        throw new BadRequestError(`Invalid 'tools': the function name '${duplicate.name}' appears more than once.`, {param: "tools", code: "invalid_value"});

    const choice = conversation.toolChoice ?? (tools.length > 0 ? "auto" : "none");
    if (choice !== "none" && tools.length === 0)
        throw new BadRequestError("Invalid 'tool_choice': 'tool_choice' is only allowed when 'tools' are given.", {param: "tool_choice", code: "invalid_value"});
    if (typeof choice === "object" && !tools.some((tool) => tool.name === choice.name))
        throw new BadRequestError(
            `Invalid 'tool_choice': the function '${choice.name}' is not one of the request's tools (${tools.map((tool) => tool.name).join(", ")}).`,
            {param: "tool_choice", code: "invalid_value"});

    const {output} = conversation;
    if (output.type === "grammar") {
        // As llama-server and vLLM: a grammar of the client's own leaves no room for a call's syntax.
        if (conversation.tools.length > 0)
            throw new BadRequestError(`Invalid '${output.path}': a grammar, regex or choice constraint cannot be combined with tools.`,
                {param: output.path, code: "invalid_value"});
        return {format: toGrammarFormat(output.constraint, output.path), needsToolSupport: false, schemas: {tools: [], json: null, ignored}};
    }
    const json: ReplyFormat | null = output.type === "json"
        ? {type: "json", schema: output.schema == null ? null : toJsonSchema(output.schema, output.strict, output.schemaPath, ignored)}
        : null;
    const schemas: SchemaOrigins = {
        tools: conversation.tools.map((tool) => ({param: tool.parametersPath, strict: tool.strict})),
        // Any JSON object (no schema) cannot fail to compile: read strictly, as before the lenient rule.
        json: output.type === "json" ? {param: output.path, strict: output.schema == null || output.strict} : null,
        ignored
    };
    if (tools.length === 0 || (json != null && choice === "none"))
        return {format: json ?? {type: "text"}, needsToolSupport: false, schemas};

    return {
        format: {
            type: "toolCalls",
            tools,
            choice,
            parallel: conversation.parallelToolCalls ?? true,
            // As at OpenAI: with "auto" the reply is calls or the JSON answer; a reply that must be
            // calls ("required", a name) has no answer, and the output format shapes a later one.
            ...(json?.type === "json" && choice === "auto" ? {answer: {schema: json.schema}} : {})
        },
        needsToolSupport: choice === "required" || typeof choice === "object",
        schemas
    };
}

/**
 * A tool → the engine's definition, its parameters read as the tool's `strict` asks (what a lenient
 * reading went without is added to `ignored`); errors name the parameters where the request has them.
 */
export function toToolDefinition({name, description, parameters, strict, parametersPath: param}: Tool, ignored: IgnoredKeyword[]): ToolDefinition {
    const schema = toConstrainedSchema(asObjectSchema(parameters), param, {strictness: SchemaStrictness.of(strict, ignored)});
    if ((schema as {type?: unknown}).type !== "object")
        throw new BadRequestError(`Invalid '${param}': a function's parameters must be an object schema ("type": "object").`, {param, code: "invalid_value"});
    return {name, ...(description != null ? {description} : {}), parameters: schema};
}

/** OpenAI: no `parameters` is an empty parameter list; a schema that names no type (`{}`) is any object. */
function asObjectSchema(parameters: Record<string, unknown> | null | undefined): Record<string, unknown> {
    if (parameters == null)
        return {type: "object", properties: {}, additionalProperties: false};
    const untyped = !["type", "anyOf", "oneOf", "enum", "const", "$ref"].some((keyword) => keyword in parameters);
    return untyped ? {...parameters, type: "object"} : parameters;
}

/** A JSON reply's schema (OpenAI's `json_schema`, Responses' `text.format`), read as its `strict` asks. */
export function toJsonSchema(schema: Record<string, unknown>, strict: boolean | null | undefined, param: string, ignored: IgnoredKeyword[]): JsonSchema {
    return toConstrainedSchema(schema, param, {strictness: SchemaStrictness.of(strict, ignored)});
}
