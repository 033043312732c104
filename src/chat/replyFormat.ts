import type {ReplyFormat, ToolDefinition} from "../engine/types.js";
import {BadRequestError} from "../errors.js";
import type {ChatCompletionRequest} from "../protocol/chatCompletionRequest.js";
import {toConstrainedSchema} from "./constrainedSchema.js";

/** What a request asks the reply to be, and whether only a model whose template renders tools can give it. */
export type ReplyPlan = {format: ReplyFormat, needsToolSupport: boolean};

/**
 * `tools`, `tool_choice`, `parallel_tool_calls` and `response_format` → the reply format the
 * engine enforces. Every combination that cannot be honoured exactly is a 400 here, before the
 * model is touched; none is quietly downgraded (`tool_choice: "required"` never becomes "auto").
 */
export function toReplyPlan(request: ChatCompletionRequest): ReplyPlan {
    const tools = (request.tools ?? []).map(toToolDefinition);
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

    const json = toJsonFormat(request.response_format);
    if (tools.length === 0 || (json != null && choice === "none"))
        return {format: json ?? {type: "text"}, needsToolSupport: false};

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
        needsToolSupport: choice === "required" || typeof choice === "object"
    };
}

function toToolDefinition(tool: NonNullable<ChatCompletionRequest["tools"]>[number], index: number): ToolDefinition {
    const {name, description, parameters} = tool.function;
    const param = `tools[${index}].function.parameters`;
    const schema = toConstrainedSchema(asObjectSchema(parameters), param);
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

function toJsonFormat(responseFormat: ChatCompletionRequest["response_format"]): ReplyFormat | null {
    switch (responseFormat?.type) {
        case undefined:
        case "text":
            return null;
        case "json_object":
            return {type: "json", schema: null};
        case "json_schema": {
            const {schema} = responseFormat.json_schema;
            return {type: "json", schema: schema == null ? null : toConstrainedSchema(schema, "response_format.json_schema.schema")};
        }
    }
}
