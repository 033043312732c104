import type {AgentScript} from "../../test/fixtures/gguf/agentModel.js";
import {WORK_FILE, type AgentClient} from "./agentClient.js";
import type {RequestLogLine} from "./chatserveProcess.js";
import type {Exchange, Outbound} from "./requestRecorder.js";
import {replyContent} from "./replyContent.js";
import type {ClientOutcome} from "./runClient.js";

export type ClientResult = {
    client: AgentClient,
    script: AgentScript,
    outcome: ClientOutcome,
    exchanges: Exchange[],
    outbound: Outbound[],
    requestLog: ReadonlyMap<string, RequestLogLine>
};

/** What one client's run proved, step by step. */
export type RoundTrip = {called: boolean, resultSent: boolean, resultNamesFile: boolean, answerPrinted: boolean, firstResult?: string};

export function roundTrip({client, script, exchanges, outcome}: ClientResult): RoundTrip {
    const called = exchanges.some((exchange) => exchange.status === 200 && replyContent(exchange.reply).calls.includes(client.expectedCall ?? script.call.name));
    const results = exchanges.map((exchange) => toolResults(exchange.body)).filter((text) => text != null);
    return {
        called,
        resultSent: results.length > 0,
        resultNamesFile: results.some((text) => text.includes(WORK_FILE)),
        ...(results[0] != null ? {firstResult: results[0]} : {}),
        answerPrinted: outcome.stdout.includes(script.answer)
    };
}

export function passed(result: ClientResult): boolean {
    const trip = roundTrip(result);
    return result.outcome.exitCode === 0 && trip.called && trip.resultSent && trip.answerPrinted &&
        result.exchanges.every((exchange) => exchange.status >= 200 && exchange.status < 300 && exchange.error == null) &&
        (result.client.mustReusePrompt !== true || reuses(result).every((reuse) => reuse.all));
}

/** One client: its run, then a row per request it made. */
export function clientReport(result: ClientResult): string {
    const {client, outcome, exchanges, outbound} = result;
    const trip = roundTrip(result);
    const lines = [
        `## ${client.name} (${client.packageName}@${client.version}, ${client.api}): ${exitText(outcome)} after ${(outcome.ms / 1000).toFixed(1)} s`,
        "",
        "| # | request | status | prompt tokens | cached | completion | what it carried |",
        "|---|---|---|---|---|---|---|",
        ...exchanges.map((exchange, index) => {
            const logged = exchange.requestId == null ? undefined : result.requestLog.get(exchange.requestId);
            return `| ${index + 1} | ${exchange.method} ${exchange.path} | ${exchange.status || "none"} | ${logged?.promptTokens ?? ""} | ${logged?.cachedTokens ?? ""} | ${logged?.completionTokens ?? ""} | ${carried(exchange, result.script)} |`;
        }),
        "",
        `tool round trip (${result.script.call.name}): called ${mark(trip.called)}, result sent back ${mark(trip.resultSent)}` +
            `${trip.resultNamesFile ? ` (it lists ${WORK_FILE})` : ""}, answer printed ${mark(trip.answerPrinted)}`,
        `the tool result it sent: ${trip.firstResult == null ? "none" : oneLine(trip.firstResult)}`,
        `prompt reuse: ${promptReuse(result)}`,
        `errors printed by the client: ${errorLines(outcome).map((line) => `\n  ${line}`).join("") || "none"}`,
        `connections it tried to open elsewhere (refused): ${outbound.length === 0 ? "none" : [...new Set(outbound.map((attempt) => attempt.target))].join(", ")}`
    ];
    return lines.join("\n");
}

type Reuse = {request: number, prompt: number, cached: number, before: number, beforePrompt: number, all: boolean};

/**
 * How much of each request's prompt came from the cache, for every request after the first that
 * generated: an agent resends its whole conversation every turn, so a request should reuse at
 * least the whole prompt of the request before it (`all`), unless something ahead of the new
 * messages changed, or one of the two is a side task with a prompt of its own.
 */
function reuses({exchanges, requestLog}: ClientResult): Reuse[] {
    const logged = exchanges.flatMap((exchange, index) => {
        const line = exchange.requestId == null ? undefined : requestLog.get(exchange.requestId);
        return line?.promptTokens == null ? [] : [{request: index + 1, prompt: line.promptTokens, cached: line.cachedTokens ?? 0}];
    });
    return logged.slice(1).map((entry, position) => {
        const before = logged[position]!;
        return {...entry, before: before.request, beforePrompt: before.prompt, all: entry.cached >= before.prompt};
    });
}

function promptReuse(result: ClientResult): string {
    const later = reuses(result).map((reuse) => `#${reuse.request} ${reuse.cached} of ${reuse.prompt} ` +
        `(${reuse.all ? "all" : `NOT all: ${reuse.beforePrompt - reuse.cached} short`} of #${reuse.before}'s ${reuse.beforePrompt})`);
    return later.length === 0 ? "no later request" : later.join(", ");
}

/** All clients, one row each. */
export function summaryTable(results: readonly ClientResult[]): string {
    return [
        "| client | version | API | exit | requests | statuses | tool round trip | earlier prompt reused | errors printed | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|",
        ...results.map((result) => {
            const {client, outcome, exchanges} = result;
            const trip = roundTrip(result);
            const statuses = countBy(exchanges.map((exchange) => `${exchange.status || "none"}${exchange.error == null ? "" : " (error)"}`));
            const tripText = `call ${mark(trip.called)} result ${mark(trip.resultSent)} answer ${mark(trip.answerPrinted)}`;
            const later = reuses(result);
            const whole = later.filter((reuse) => reuse.all).length;
            const reuseText = later.length === 0 ? "-" : `${whole} of ${later.length}${result.client.mustReusePrompt === true ? " (required)" : ""}`;
            return `| ${client.name} | ${client.version} | ${client.api} | ${exitText(outcome)} | ${exchanges.length} | ${statuses} | ${tripText} | ${reuseText} | ${errorLines(outcome).length} | ${passed(result) ? "PASS" : "FAIL"} |`;
        })
    ].join("\n");
}

function exitText({exitCode, signal, timedOut}: ClientOutcome): string {
    if (timedOut) return `timed out (${signal ?? `exit ${exitCode}`})`;
    return signal != null ? `killed by ${signal}` : `exit ${exitCode}`;
}

/** A request's gist: its tool result if it carried one, and what the reply did (a call, the answer, an error). */
function carried(exchange: Exchange, script: AgentScript): string {
    const parts: string[] = [];
    const body = exchange.body as {model?: string, stream?: boolean, tools?: unknown[], max_tokens?: number, max_output_tokens?: number} | null;
    if (body?.model != null) parts.push(`model ${body.model}`);
    if (Array.isArray(body?.tools)) parts.push(`${body.tools.length} tools`);
    const cap = body?.max_tokens ?? body?.max_output_tokens;
    if (cap != null) parts.push(`cap ${cap}`);
    if (body?.stream === true) parts.push("streamed");
    if (toolResults(exchange.body) != null) parts.push("+ tool result");
    const reply = replyContent(exchange.reply);
    if (reply.calls.length > 0) parts.push(`→ calls ${reply.calls.join(", ")}`);
    if (reply.text === script.answer) parts.push("→ the scripted answer");
    else if (reply.text !== "") parts.push(`→ text ${JSON.stringify(reply.text.length > 40 ? `${reply.text.slice(0, 37)}...` : reply.text)}`);
    if (exchange.error != null) parts.push(`error: ${oneLine(exchange.error)}`);
    return parts.join(", ").replaceAll("|", "\\|");
}

/** The text of the tool results a request carried (chat: `tool` messages; Responses: `function_call_output` items; Messages: `tool_result` blocks), or null. */
function toolResults(body: unknown): string | null {
    const request = body as {messages?: Array<{role?: string, content?: unknown}>, input?: unknown} | null;
    const results = Array.isArray(request?.messages)
        ? request.messages.flatMap((message) => message.role === "tool" ? [message.content]
            : Array.isArray(message.content) ? (message.content as Array<{type?: string, content?: unknown}>).filter((block) => block?.type === "tool_result").map((block) => block.content) : [])
        : Array.isArray(request?.input) ? (request.input as Array<{type?: string, output?: unknown}>).filter((item) => item.type === "function_call_output").map((item) => item.output) : [];
    return results.length === 0 ? null : results.map(asText).join("\n");
}

/** A string, or the text of a list of content parts (`[{type: "text", text}]`, `[{type: "input_text", text}]`). */
function asText(content: unknown): string {
    if (typeof content === "string") return content;
    return Array.isArray(content) ? content.map((part: {text?: unknown}) => typeof part?.text === "string" ? part.text : JSON.stringify(part)).join("") : JSON.stringify(content);
}

/**
 * What the client printed that reads as an error or warning, each distinct line once. A line of
 * JSON (Claude Code's `--output-format json` result) is one only when it says so, not because a
 * field such as `is_error: false` is named like one.
 */
export function errorLines({stdout, stderr}: ClientOutcome): string[] {
    const lines = `${stdout}\n${stderr}`.split(/\r?\n/).map((line) => stripAnsi(line).trim());
    const errors = lines.filter((line) => jsonSaysError(line) ?? /error|fail|exception|refused|denied|unsupported|invalid|warn|not found|timed? ?out/i.test(line));
    return [...new Set(errors)].slice(0, 12).map((line) => oneLine(line));
}

/** For a line holding a JSON object: whether it reports an error or warning (`is_error: true`, an `error`, an error `subtype`, a warn or error `level`). Otherwise null. */
function jsonSaysError(line: string): boolean | null {
    if (!line.startsWith("{")) return null;
    try {
        const value = JSON.parse(line) as {is_error?: unknown, error?: unknown, subtype?: unknown, level?: unknown} | null;
        if (typeof value !== "object" || value == null) return null;
        return value.is_error === true || (value.error != null && value.error !== false) ||
            /^error/i.test(String(value.subtype ?? "")) || /warn|error|fatal/i.test(String(value.level ?? ""));
    } catch {
        return null;
    }
}

function stripAnsi(text: string): string {
    // eslint-disable-next-line no-control-regex
    return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
}

function oneLine(text: string): string {
    const flat = text.replace(/\s+/g, " ").trim();
    return flat.length > 240 ? `${flat.slice(0, 237)}...` : flat;
}

function mark(ok: boolean): string {
    return ok ? "yes" : "NO";
}

function countBy(values: readonly string[]): string {
    const counts = new Map<string, number>();
    for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
    return [...counts].map(([value, count]) => `${count}× ${value}`).join(", ") || "none";
}
