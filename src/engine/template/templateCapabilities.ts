import {Environment, type Template} from "@huggingface/jinja";

/**
 * What a chat template can take, found by rendering small probe conversations, as llama.cpp
 * (common/jinja/caps.cpp) finds it, so that messages reach the template in the form its family
 * was trained on:
 * - `systemRole`: the template shows a system message (Gemma 2 and Mistral 7B's refuse one; the
 *   system text then opens the first user message instead).
 * - `objectArguments`: the template reads inside a call's arguments (`arguments|tojson`,
 *   `arguments.items()`): they are passed parsed, else as the client's JSON text. llama.cpp counts
 *   a template that only prints them as taking text, so printing does not count here either.
 */
export type TemplateCapabilities = {systemRole: boolean, objectArguments: boolean};

const marker = "CHATSERVE_PROBE_7f3a";

export function probeCapabilities(template: Template, render: (template: Template, context: Record<string, unknown>) => string): TemplateCapabilities {
    const renders = (context: Record<string, unknown>): string | null => {
        try {
            return render(template, context);
        } catch {
            return null;
        }
    };
    const system = renders({messages: [{role: "system", content: marker}, {role: "user", content: "User message"}]});
    return {systemRole: system?.includes(marker) === true, objectArguments: readsInsideArguments(renders)};
}

/** A conversation with one call whose arguments are an object, as llama.cpp's probe has it. */
function callConversation(): Record<string, unknown> {
    return {
        messages: [
            {role: "user", content: "User message"},
            {role: "assistant", content: "", tool_calls: [{id: "call00001", type: "function", function: {name: "tool1", arguments: {arg: marker}}}]},
            {role: "tool", content: "Tool response", tool_call_id: "call00001"},
            {role: "assistant", content: "The tool response was 'tool response'"},
            {role: "user", content: "User message"}
        ],
        tools: [{type: "function", function: {
            name: "tool1", description: "Tool description",
            parameters: {type: "object", properties: {arg: {type: "string", description: "Arg description"}}, required: ["arg"]}
        }}]
    };
}

type RuntimeObject = {value: Map<string, unknown>, toString(): string};
type PatchedEnvironment = {set(name: string, value: unknown): unknown};

let instrument: ((name: string, value: unknown) => void) | null = null;
const environment = Environment.prototype as unknown as PatchedEnvironment;
const set = environment.set;
environment.set = function (this: unknown, name: string, value: unknown) {
    const result = set.call(this, name, value);
    instrument?.(name, result);
    return result;
};

/**
 * Renders the call conversation with the arguments' runtime object watched: a look inside it
 * (a key read, its entries listed) outside of printing it whole means the template reads them.
 */
function readsInsideArguments(renders: (context: Record<string, unknown>) => string | null): boolean {
    let read = false;
    let printing = false;
    instrument = (name, value) => {
        if (name !== "messages")
            return;
        const call = at(at(at(at(value, 1), "tool_calls"), 0), "function");
        const args = at(call, "arguments") as RuntimeObject | undefined;
        if (args?.value instanceof Map === false)
            return;
        const watched = new Map(args.value);
        for (const method of ["get", "has", "entries", "keys", "values", "forEach", Symbol.iterator] as const) {
            const original = watched[method].bind(watched) as (...parameters: unknown[]) => unknown;
            (watched as unknown as Record<string | symbol, unknown>)[method] = (...parameters: unknown[]) => {
                read ||= !printing;
                return original(...parameters);
            };
        }
        args.value = watched;
        const toString = args.toString.bind(args);
        args.toString = () => {
            printing = true;
            try {
                return toString();
            } finally {
                printing = false;
            }
        };
    };
    try {
        const output = renders(callConversation());
        return output != null && read;
    } finally {
        instrument = null;
    }
}

/** A member of a runtime array (by index) or object (by key), as @huggingface/jinja holds them. */
function at(value: unknown, key: number | string): unknown {
    const inner = (value as {value?: unknown} | undefined)?.value;
    if (typeof key === "number")
        return Array.isArray(inner) ? inner[key] : undefined;
    return inner instanceof Map ? inner.get(key) : undefined;
}
