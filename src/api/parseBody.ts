import type {z} from "zod";
import {BadRequestError} from "../errors.js";
import {maxJsonNesting, nestsDeeperThan} from "../json-schema/jsonNesting.js";

/**
 * Validates a request body against a protocol schema. The first problem becomes a 400
 * whose `param` names the field the way OpenAI does (`messages[0].content`).
 */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.infer<Schema> {
    if (body == null || typeof body !== "object" || Array.isArray(body))
        throw new BadRequestError("The request body must be a JSON object.");
    if (nestsDeeperThan(body))
        throw new BadRequestError(`The request body nests objects and arrays more than ${maxJsonNesting} levels deep.`, {code: "invalid_value"});

    const result = schema.safeParse(body, {reportInput: true});
    if (result.success)
        return result.data;

    const issue = result.error.issues[0]!;
    const param = formatPath(issue.path) || null;
    if (issue.code === "invalid_type" && issue.input === undefined)
        throw new BadRequestError(`Missing required parameter: '${param}'.`, {param, code: "missing_required_parameter"});

    throw new BadRequestError(`Invalid '${param}': ${issue.message}.`, {param, code: "invalid_value"});
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
    return path.reduce<string>((text, key) => typeof key === "number"
        ? `${text}[${key}]`
        : text === "" ? String(key) : `${text}.${String(key)}`, "");
}
