import type {JsonSchema} from "../engine/types.js";
import {patternString} from "./schemaBounds.js";
import {unsupported, type SchemaObject} from "./schemaErrors.js";

/**
 * A string's `format`, enforced by the grammar: node-llama-cpp's own rules for dates and times,
 * and a pattern of chatserve's for the other formats OpenAI's strict mode lists that pydantic and
 * zod write (`UUID`, `timedelta`, `IPv4Address`). Email and host names are left out: any pattern
 * short of their RFCs would refuse valid ones or let invalid ones through.
 */

const nativeFormats = new Set(["date-time", "date", "time"]);

const octet = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
/**
 * ISO 8601 durations (`P1DT2H`, `PT0.5S`): at least one component, a `T` only before time ones.
 * Numbers have at most 6 digits: a model that keeps writing digits still ends the string, and
 * pydantic's timedelta takes every value (9-digit hours overflowed it).
 */
const n = "\\d{1,6}";
const durationDate = `(${n}Y(${n}M)?(${n}W)?(${n}D)?|${n}M(${n}W)?(${n}D)?|${n}W(${n}D)?|${n}D)`;
const seconds = `${n}(\\.${n})?S`;
const durationTime = `(${n}H(${n}M)?(${seconds})?|${n}M(${seconds})?|${seconds})`;

export const formatPatterns: ReadonlyMap<string, string> = new Map([
    ["uuid", "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"],
    ["ipv4", `^(${octet}\\.){3}${octet}$`],
    ["duration", `^-?P(${durationDate}(T${durationTime})?|T${durationTime})$`]
]);

export function formatString(schema: SchemaObject, path: string, description: {description?: string}): JsonSchema {
    const format = schema.format;
    if (typeof format === "string" && nativeFormats.has(format))
        return {type: "string", format: format as "date-time", ...description};
    const pattern = typeof format === "string" ? formatPatterns.get(format) : undefined;
    if (pattern != null) {
        const bound = ["minLength", "maxLength"].find((keyword) => keyword in schema);
        if (bound != null)
            throw unsupported(path, bound, `'${bound}' next to 'format: ${format}' cannot be enforced by constrained decoding`);
        return patternString({...schema, pattern}, path, description);
    }
    throw unsupported(path, "format", `the string format '${String(format)}' cannot be enforced by constrained decoding ` +
        `(supported: ${[...nativeFormats, ...formatPatterns.keys()].join(", ")})`);
}
