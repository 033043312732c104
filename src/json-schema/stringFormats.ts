import type {JsonSchema} from "../engine/generationOptions.js";
import {patternString} from "./schemaBounds.js";
import {unsupported, type SchemaObject} from "./schemaErrors.js";
import type {SchemaStrictness} from "./schemaStrictness.js";

/**
 * A string's `format`, enforced by the grammar through a pattern of chatserve's, for the formats
 * OpenAI's strict mode lists that pydantic and zod write (`datetime`, `date`, `time`, `UUID`,
 * `timedelta`, `IPv4Address`). Email and host names are left out: any pattern short of their RFCs
 * would refuse valid ones or let invalid ones through. Any other format (`uri`, `email`, …) cannot be
 * enforced: a 400 when strict, otherwise null, and the string is a plain one.
 */

/**
 * RFC 3339's full-date with the calendar's days: node-llama-cpp's own rule took any day 01–31 in any
 * month, so a reply could hold `2048-11-31`, which Python's `date` refuses. 29 February only in leap
 * years, and no year 0000 (Python's dates begin at year 1).
 */
const year = "(\\d{3}[1-9]|\\d{2}[1-9]\\d|\\d[1-9]\\d{2}|[1-9]\\d{3})";
const leapYear = "(\\d{2}(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)";
const monthAndDay = "((0[13578]|1[02])-(0[1-9]|[12]\\d|3[01])|(0[469]|11)-(0[1-9]|[12]\\d|30)|02-(0[1-9]|1\\d|2[0-8]))";
const date = `(${year}-${monthAndDay}|${leapYear}-02-29)`;
/** RFC 3339's full-time, as node-llama-cpp's rule writes it: milliseconds optional, an offset required. */
const hour = "([01]\\d|2[0-3])";
const time = `${hour}:[0-5]\\d:[0-5]\\d(\\.\\d{3})?(Z|[+-]${hour}:[0-5]\\d)`;

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
    ["date", `^${date}$`],
    ["time", `^${time}$`],
    ["date-time", `^${date}T${time}$`],
    ["uuid", "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"],
    ["ipv4", `^(${octet}\\.){3}${octet}$`],
    ["duration", `^-?P(${durationDate}(T${durationTime})?|T${durationTime})$`]
]);

export function formatString(schema: SchemaObject, path: string, description: {description?: string}, strictness: SchemaStrictness): JsonSchema | null {
    const format = schema.format;
    const pattern = typeof format === "string" ? formatPatterns.get(format) : undefined;
    if (pattern == null) {
        strictness.refuse(unsupported(path, "format", `the string format '${String(format)}' cannot be enforced by constrained decoding ` +
            `(supported: ${[...formatPatterns.keys()].join(", ")})`));
        return null;
    }
    // Leniently, the format alone: it bounds the length already.
    for (const bound of ["minLength", "maxLength"].filter((keyword) => keyword in schema))
        strictness.refuse(unsupported(path, bound, `'${bound}' next to 'format: ${format}' cannot be enforced by constrained decoding`));
    return patternString({pattern}, path, description, strictness);
}
