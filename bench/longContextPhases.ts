import {agentTools} from "./agentTools.js";
import type {HttpTarget} from "./httpStreams.js";
import type {Suite} from "./pairedComparison.js";
import {promptText} from "./prompts.js";
import {decodeTokPerS, streamChat, ttftMs, type ChatMessage, type StreamResult} from "./sse.js";
import {perSecond} from "./stats.js";

/**
 * An agent's loop at long context, on two servers taking turns (pairedComparison.ts): a first
 * prompt of ~`promptTokens` tokens that no cache holds (a coding agent's instructions, then its
 * task), the reply generated at that depth, then the next turn, which resends all of it with the
 * reply and a tool's output at the end, as agents do every turn.
 *
 * Figures per run: the first prompt's TTFT and prompt tokens per second, decode tok/s at that
 * depth, the follow-up's TTFT with how much of it was new (not from the cache), and each turn's
 * time to its last token.
 *
 * With `tools`, the request also carries twelve tools (agentTools.ts) with `tool_choice: "auto"`,
 * and a call in the reply goes back as the assistant's `tool_calls` and a `tool` message. A random
 * model's reply is then mostly whitespace, which both servers hold back while it could still open
 * a call (llama-server sends none of it, chatserve sends it at the end): TTFT and decode tok/s are
 * not observable, and only the turns' times to their last token compare.
 */

export type LongContextFigures = {
    promptTokens: number,
    turn1: number,
    prefill: number,
    decode: number,
    completionTokens: number,
    /** Tool calls in turn 1's reply (random weights: few, if any). */
    toolCalls: number,
    turn2: number,
    turn2NewTokens: number,
    /** Each turn's request to its last streamed token. */
    turn1End: number,
    turn2End: number
};

/** A tool's output in the follow-up turn: what an agent appends after a file read or a command. */
const toolOutputTokens = 300;

type Extra = {tools?: typeof agentTools, tool_choice?: "auto"};

/**
 * How to ask for a prompt of a given size. prompts.ts's text is sized with the SmolLM2 tokenizer;
 * other vocabularies split it differently. Measured once, on the first server asked (both load the
 * same model, so the same tokenizer): the tokens a one-word question takes with the tools'
 * documentation and the template's markup (`fixed`), and what a 4,000-token text really comes to.
 */
const calibrationTokens = 4000;
let sizing: Promise<{fixed: number, tokensPerAsked: number}> | undefined;

function measureSizing(target: HttpTarget, extra: Extra): Promise<{fixed: number, tokensPerAsked: number}> {
    sizing ??= (async () => {
        const bare = await streamChat(target.url, target.model, [{role: "user", content: "Hi."}], 1, extra);
        const sized = await streamChat(target.url, target.model, [{role: "user", content: `Hi. ${promptText("Calibration", calibrationTokens)}`}], 1, extra);
        const fixed = bare.usage?.prompt_tokens ?? Number.NaN;
        const measured = (sized.usage?.prompt_tokens ?? Number.NaN) - fixed;
        return {fixed: Number.isFinite(fixed) ? fixed : 0, tokensPerAsked: Number.isFinite(measured) && measured > 0 ? measured / calibrationTokens : 1};
    })();
    return sizing;
}

/** The first turn's messages: unique from the system prompt's first word, so nothing of it is cached. */
async function firstTurn(target: HttpTarget, run: number, promptTokens: number, extra: Extra): Promise<ChatMessage[]> {
    const {fixed, tokensPerAsked} = await measureSizing(target, extra);
    const task = 40;
    return [
        {role: "system", content: promptText(`Run ${run} agent instructions`, Math.round(Math.max(0, promptTokens - fixed - task) / tokensPerAsked))},
        {role: "user", content: promptText(`Run ${run} task`, task) + " Start with the first step."}
    ];
}

function figures(turn1: StreamResult, turn2: StreamResult): Omit<LongContextFigures, "toolCalls"> {
    const end = (result: StreamResult) => (result.lastContentAt ?? result.finishedAt ?? Number.NaN) - result.startedAt;
    const promptTokens = turn1.usage?.prompt_tokens ?? Number.NaN;
    const uncached = promptTokens - (turn1.usage?.prompt_tokens_details?.cached_tokens ?? 0);
    return {
        promptTokens,
        turn1: ttftMs(turn1),
        prefill: perSecond(uncached, ttftMs(turn1)),
        decode: decodeTokPerS(turn1),
        completionTokens: turn1.usage?.completion_tokens ?? Number.NaN,
        turn2: ttftMs(turn2),
        turn2NewTokens: (turn2.usage?.prompt_tokens ?? Number.NaN) - (turn2.usage?.prompt_tokens_details?.cached_tokens ?? 0),
        turn1End: end(turn1),
        turn2End: end(turn2)
    };
}

type Rows = Suite<LongContextFigures>["rows"];

/** The rows both reports share. */
const shared = {
    promptTokens: {name: "first prompt's tokens", unit: "tokens", pick: (run) => run.promptTokens, digits: 0},
    completionTokens: {name: "tokens generated", unit: "tokens", pick: (run) => run.completionTokens, digits: 0},
    turn1End: {name: "first turn, request to last token", unit: "ms", pick: (run) => run.turn1End, digits: 0},
    turn2NewTokens: {name: "turn-2 prompt tokens not cached", unit: "tokens", pick: (run) => run.turn2NewTokens, digits: 0},
    turn2End: {name: "turn 2, request to last token", unit: "ms", pick: (run) => run.turn2End, digits: 0}
} satisfies Record<string, Rows[number]>;

const plainRows: Rows = [
    shared.promptTokens,
    {name: "first-prompt TTFT", unit: "ms", pick: (run) => run.turn1, digits: 0},
    {name: "first-prompt processing", unit: "tok/s", pick: (run) => run.prefill},
    {name: "decode at that depth", unit: "tok/s", pick: (run) => run.decode},
    shared.completionTokens,
    shared.turn1End,
    {name: "turn-2 TTFT", unit: "ms", pick: (run) => run.turn2, digits: 0},
    shared.turn2NewTokens,
    shared.turn2End,
    {name: "turn-2 ÷ first-prompt TTFT", unit: "", pick: (run) => run.turn2 / run.turn1, digits: 3}
];

/** With tools, what a random model's held-back whitespace leaves observable (see the top). */
const toolRows: Rows = [
    shared.promptTokens,
    shared.turn1End,
    shared.completionTokens,
    {name: "tool calls in the reply", unit: "calls", pick: (run) => run.toolCalls, digits: 0},
    shared.turn2NewTokens,
    shared.turn2End,
    {name: "turn 2 ÷ first turn, to last token", unit: "", pick: (run) => run.turn2End / run.turn1End, digits: 3}
];

/** Turn 2's messages: turn 1's, its reply as the agent sends it back, and a tool's output. */
function secondTurn(run: number, messages: ChatMessage[], turn1: StreamResult): ChatMessage[] {
    const output = promptText(`Run ${run} tool output`, toolOutputTokens);
    if (turn1.toolCalls.length === 0)
        return [...messages, {role: "assistant", content: turn1.content}, {role: "user", content: `Tool output:\n${output}\nContinue with the next step.`}];
    return [
        ...messages,
        {role: "assistant", content: turn1.content, tool_calls: turn1.toolCalls},
        ...turn1.toolCalls.map((call): ChatMessage => ({role: "tool", tool_call_id: call.id, content: output}))
    ];
}

/**
 * One phase per run: both turns of the agent's loop on one server, then the same on the other
 * (the servers take turns; each keeps its own cache). Turn 2 comes straight after turn 1, as an
 * agent's does once its tool has run.
 */
export function longContextSuite(promptTokens: number, {tools}: {tools: boolean}): Suite<LongContextFigures> {
    const extra: Extra = tools ? {tools: agentTools, tool_choice: "auto"} : {};
    return {
        phases: [
            async (target, run) => {
                const messages = await firstTurn(target, run, promptTokens, extra);
                const turn1 = await streamChat(target.url, target.model, messages, target.maxTokens, extra);
                const turn2 = await streamChat(target.url, target.model, secondTurn(run, messages, turn1), target.maxTokens, extra);
                return {...figures(turn1, turn2), toolCalls: turn1.toolCalls.length};
            }
        ],
        rows: tools ? toolRows : plainRows
    };
}
