import type {LlamaGrammarEvaluationState, Token, TokenBias} from "node-llama-cpp";
import type {GenerationEvent} from "../generationEvents.js";
import type {ReplyGrammars} from "./grammars.js";
import type {ReplyShaper, ShaperStep} from "./replyShaper.js";
import {partialSuffixLength} from "./partialText.js";
import {ToolCallReply} from "./toolCallReply.js";

type Phase = "header" | "analysis" | "answer" | "call";

/** Harmony's markup (GPT-OSS): control tokens that detokenize to nothing, so the shaper is shown their text. */
const markers = ["<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "<|end|>"] as const;
const messageStart = "<|message|>";
const messageEnd = "<|end|>";
/** A message's header begins with one of these (after `<|start|>assistant`, which the prompt or the model writes). */
const headerStarts = ["<|start|>", "<|channel|>", "to=", "<|constrain|>"];

/**
 * GPT-OSS's reply in OpenAI's Harmony format: messages, each a header and `<|message|>` and text,
 * ended by `<|end|>`, the next opened by `<|start|>assistant` (the reply's last ends with
 * `<|return|>`, or `<|call|>` after a call, both end-of-generation tokens). A message's channel says
 * what it is, as llama.cpp reads them: `analysis` is the thought (reasoning), `final` and
 * `commentary` are the answer, and a recipient `to=functions.NAME` (in the role part or the
 * channel part of the header, `<|constrain|>json` or not) makes it a call of that tool, its text the
 * JSON arguments, constrained by the inner ToolCallReply as any call's are. So a call after the
 * analysis, or in the analysis channel itself, is read as a call, never left in the text.
 */
export class HarmonyReply implements ReplyShaper {
    public readonly opening: {tokens: Token[], events: GenerationEvent[]};
    public readonly shownTokens: ReadonlyMap<Token, string>;
    private phase: Phase = "header";
    private held = "";
    private thoughtTokens = 0;

    public constructor(private readonly inner: ReplyShaper, grammars: ReplyGrammars) {
        this.opening = inner.opening;
        const shown = new Map(inner.shownTokens ?? []);
        for (const marker of markers) {
            const tokens = grammars.tokenize(marker);
            if (tokens.length === 1)
                shown.set(tokens[0]!, marker);
        }
        this.shownTokens = shown;
    }

    public get reasoningTokens(): number {
        return this.thoughtTokens;
    }

    public get stopSequence(): string | null | undefined {
        return this.inner.stopSequence;
    }

    public grammar(): LlamaGrammarEvaluationState | undefined {
        return this.phase === "call" || this.phase === "answer" ? this.inner.grammar() : undefined;
    }

    public tokenBias(remainingTokens: number): TokenBias | undefined {
        return this.phase === "call" || this.phase === "answer" ? this.inner.tokenBias(remainingTokens) : undefined;
    }

    public push(text: string, remainingTokens: number): ShaperStep {
        if (this.phase === "call")
            return this.inner.push(text, remainingTokens);
        if (this.phase === "analysis")
            this.thoughtTokens++;
        this.held += text;
        const events: GenerationEvent[] = [];
        for (;;) {
            const step = this.advance(remainingTokens);
            if (step == null)
                return {events};
            events.push(...step.events);
            // A call has begun: what the model writes next is its arguments.
            if (step.forced != null || step.finish != null || (this.phase as Phase) === "call")
                return {...step, events};
        }
    }

    public end(rest: string): ShaperStep {
        this.held += rest;
        const events = this.phase === "analysis" ? reasoning(this.takeHeld(messageEnd, true)) : [];
        const answer = this.phase === "answer" || this.phase === "call" ? this.takeHeld(messageEnd, true) : "";
        const step = this.inner.end(answer);
        return {...step, events: [...events, ...step.events]};
    }

    public cut(rest: string): GenerationEvent[] {
        this.held += rest;
        if (this.phase === "analysis")
            return reasoning(this.takeHeld(messageEnd, true));
        return this.inner.cut(this.phase === "header" ? "" : this.takeHeld(messageEnd, true));
    }

    /** One move on what is held: null when it needs more text. */
    private advance(remainingTokens: number): ShaperStep | null {
        switch (this.phase) {
            case "header":
                return this.readHeader(remainingTokens);
            case "analysis": {
                const thought = this.takeHeld(messageEnd, false);
                const ended = this.messageEnded();
                return thought === "" && !ended ? null : {events: reasoning(thought)};
            }
            case "answer": {
                const text = this.takeHeld(messageEnd, false);
                const ended = this.messageEnded();
                const step = text === "" ? {events: []} : this.inner.push(text, remainingTokens);
                return text === "" && !ended ? null : step;
            }
            case "call":
                return null;
        }
    }

    /** A header up to `<|message|>`: its recipient or channel says where the message's text goes. */
    private readHeader(remainingTokens: number): ShaperStep | null {
        const end = this.held.indexOf(messageStart);
        if (end < 0) {
            // The role part (`<|start|>assistant`, which the prompt usually wrote), then the header proper.
            const role = this.held.replace(/^\s*(<\|start\|>)?\s*/, "");
            const lead = role.startsWith("assistant") ? role.slice("assistant".length).trimStart() : "assistant".startsWith(role) ? "" : role;
            // A model that writes no header at all (a fine-tune without Harmony) is answering.
            if (lead !== "" && !headerStarts.some((start) => lead.startsWith(start) || start.startsWith(lead))) {
                this.phase = "answer";
                return {events: []};
            }
            return null;
        }
        const header = this.held.slice(0, end);
        this.held = this.held.slice(end + messageStart.length);
        const recipient = /to=functions\.([^\s<]+)/.exec(header)?.[1];
        const calls = this.inner instanceof ToolCallReply ? this.inner : null;
        const tool = recipient == null ? undefined : calls?.tools.find((candidate) => candidate.name === recipient);
        if (calls != null && tool != null && calls.mayCall) {
            this.phase = "call";
            const opened = calls.openNamedCall(tool);
            const rest = this.takeHeld("", true);
            if (rest === "")
                return opened;
            const step = calls.push(rest, remainingTokens);
            return {...step, events: [...opened.events, ...step.events]};
        }
        this.phase = /<\|channel\|>\s*analysis/.test(header) && recipient == null ? "analysis" : "answer";
        return {events: []};
    }

    /** Whether the held text begins the next message (`<|end|>` seen): the next header is read then. */
    private messageEnded(): boolean {
        if (!this.held.startsWith(messageEnd))
            return false;
        this.held = this.held.slice(messageEnd.length);
        this.phase = "header";
        return true;
    }

    /** Held text up to `marker` (all of it when `all`), keeping back a possible start of the marker. */
    private takeHeld(marker: string, all: boolean): string {
        const at = marker === "" ? -1 : this.held.indexOf(marker);
        const upTo = all ? (at < 0 ? this.held.length : at) : at >= 0 ? at : this.held.length - partialSuffixLength(this.held, marker);
        const text = this.held.slice(0, upTo);
        this.held = all && at < 0 ? "" : this.held.slice(upTo);
        return text;
    }
}

function reasoning(text: string): GenerationEvent[] {
    return text === "" ? [] : [{type: "reasoning", text}];
}
