import {BadRequestError} from "../errors.js";

/** A JSON Schema object as clients send it, and the two kinds of 400 the conversion answers with. */
export type SchemaObject = Record<string, unknown>;

export function isObject(value: unknown): value is SchemaObject {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asObject(value: unknown, path: string): SchemaObject {
    if (value === undefined)
        return {};
    if (!isObject(value))
        throw invalid(path, "must be a JSON object");
    return value;
}

/** A schema that is valid JSON Schema but asks for what the grammar cannot enforce; `param` names the keyword. */
export function unsupported(path: string, keyword: string | null, reason: string): BadRequestError {
    return new BadRequestError(`Invalid schema at '${path}': ${reason}.`,
        {param: keyword == null ? path : `${path}.${keyword}`, code: "unsupported_schema_keyword"});
}

export function invalid(path: string, reason: string): BadRequestError {
    return new BadRequestError(`Invalid schema at '${path}': ${reason}.`, {param: path, code: "invalid_schema"});
}
