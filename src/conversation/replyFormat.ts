import type {JsonSchema, ReplyFormat, ToolDefinition} from "../engine/types.js";
import {BadRequestError} from "../errors.js";
import type {ChatCompletionRequest} from "../api/openai-chat/chatCompletionRequest.js";
import {toConstrainedSchema} from "../json-schema/constrainedSchema.js";
import {SchemaStrictness, type IgnoredKeyword, type SchemaOrigins} from "../json-schema/schemaStrictness.js";

/**
 * What a request asks the reply to be, whether only a model whose template renders tools can give
 * it, and where its schemas came from (replyGrammars.ts compiles them by the same strictness).
 */
export type ReplyPlan = {format: ReplyFormat, needsToolSupport: boolean, schemas: SchemaOrigins};

/** A function tool as any wire API sends it; `strict` as OpenAI reads it (schemaStrictness.ts). */
export type FunctionTool = {name: string, description?: string | null, parameters?: Record<string, unknown> | null, strict?: boolean | null};

/**
 * `tools`, `tool_choice`, `parallel_tool_calls` and `response_format` → the reply format the
 * engine enforces. Every combination that cannot be honoured exactly is a 400 here, before the
 * model is touched; none is quietly downgraded (`tool_choice: "required"` never becomes "auto").
 * Schemas are hints unless `strict: true` says otherwise (schemaStrictness.ts).
 */
export function toReplyPlan(request: ChatCompletionRequest): ReplyPlan {
    const ignored: IgnoredKeyword[] = [];
    const toolParams = (index: number) => `tools[${index}].function.parameters`;
    const tools = (request.tools ?? []).map((tool, index) => toToolDefinition(tool.function, toolParams(index), ignored));
    const duplicate = tools.find((tool, index) => tools.findIndex((other) => other.name === tool.name) !== index);
    if (duplicate != null)
        throw new BadRequestError(`Invalid 'tools': the function name '${duplicate.name}' appears more than once.`, {param: "tools", code: "invalid_value"});

    const choice = request.tool_choice ?? (tools.length > 0 ? "auto" : "none");
    if (choice !== "none" && tools.length === 0)
        throw new BadRequestError("Invalid 'tool_choice': 'tool_choice' is only allowed when 'tools' are given.", {param: "tool_choice", code: "invalid_value"});
    if (typeof choice === "object" && !tools.some((tool) => tool.name === choice.function.name))
        throw new BadRequestError(
            `Invalid 'tool_choice': the function '${choice.function.name}' is not one of the request's tools (${tools.map((tool) => tool.name).join(", ")}).`,
            {param: "tool_choice", code: "invalid_value"});

    const json = toJsonFormat(request.response_format, ignored);
    const schemas: SchemaOrigins = {
        tools: (request.tools ?? []).map((tool, index) => ({param: toolParams(index), strict: tool.function.strict === true})),
        json: request.response_format?.type === "json_schema"
            ? {param: "response_format", strict: request.response_format.json_schema.strict === true}
            : null,
        ignored
    };
    if (tools.length === 0 || (json != null && choice === "none"))
        return {format: json ?? {type: "text"}, needsToolSupport: false, schemas};

    return {
        format: {
            type: "toolCalls",
            tools,
            choice: typeof choice === "object" ? {name: choice.function.name} : choice,
            parallel: request.parallel_tool_calls ?? true,
            // As at OpenAI: with "auto" the reply is calls or the JSON answer; a reply that must be
            // calls ("required", a name) has no answer, and response_format shapes a later one.
            ...(json?.type === "json" && choice === "auto" ? {answer: {schema: json.schema}} : {})
        },
        needsToolSupport: choice === "required" || typeof choice === "object",
        schemas
    };
}

/**
 * A function tool → the engine's definition, its parameters read as the tool's `strict` asks (what a
 * lenient reading went without is added to `ignored`); `param` names the parameters in the request.
 */
export function toToolDefinition({name, description, parameters, strict}: FunctionTool, param: string, ignored: IgnoredKeyword[]): ToolDefinition {
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

function toJsonFormat(responseFormat: ChatCompletionRequest["response_format"], ignored: IgnoredKeyword[]): ReplyFormat | null {
    switch (responseFormat?.type) {
        case undefined:
        case "text":
            return null;
        case "json_object":
            return {type: "json", schema: null};
        case "json_schema": {
            const {schema, strict} = responseFormat.json_schema;
            return {type: "json", schema: schema == null ? null : toJsonSchema(schema, strict, "response_format.json_schema.schema", ignored)};
        }
    }
}

/** A JSON reply's schema (OpenAI's `json_schema`, Responses' `text.format`), read as its `strict` asks. */
export function toJsonSchema(schema: Record<string, unknown>, strict: boolean | null | undefined, param: string, ignored: IgnoredKeyword[]): JsonSchema {
    return toConstrainedSchema(schema, param, {strictness: SchemaStrictness.of(strict, ignored)});
}
