import type {LlamaGrammarEvaluationState, Token, TokenBias} from "node-llama-cpp";
import type {ThoughtMarkers} from "../preparedPrompt.js";
import type {GenerationEvent} from "../generationEvents.js";
import type {ReplyShaper, ShaperStep} from "./replyShaper.js";
import {partialSuffixLength} from "./partialText.js";

type Phase = "start" | "thinking" | "answerStart" | "answer";

/**
 * A reasoning model's thought (`<think>…</think>` opening its reply, or all it writes before
 * `</think>` when the prompt opened the thought) as `reasoning` events,
 * the rest handed to the reply's own shaper as if the reply began after the thought: what
 * llama-server sends as `reasoning_content`. Whitespace around the thought and before the answer
 * is the template's layout, not the model's words, so it is dropped.
 *
 * Only replies the model begins freely are wrapped (text, tool calls it may choose: see
 * `beginsFreely`), and those have no grammar until the model writes a call, so the grammar and
 * bias are the inner shaper's throughout. Stop sequences apply to the answer only: a client's
 * `stop: ["\n\n"]` must not end a reply in the middle of its thinking.
 */
export class ThoughtReply implements ReplyShaper {
    public readonly opening: {tokens: Token[], events: GenerationEvent[]};
    public readonly shownTokens: ReadonlyMap<Token, string> | undefined;
    private phase: Phase;
    /** Text not handed on yet: a possible start of the opening marker, or of the closing one, or trailing whitespace. */
    private held = "";
    /** Whether the thought has had a word yet: whitespace before it is layout. */
    private thoughtStarted = false;
    /** The thought's tokens, its markers included (usage's `reasoning_tokens`). */
    private thoughtTokens = 0;
    /** Tokens held at the start that may yet be the opening marker. */
    private startTokens = 0;

    public constructor(private readonly inner: ReplyShaper, private readonly markers: ThoughtMarkers) {
        this.opening = inner.opening;
        const {tokens} = markers;
        // Markers that are special tokens (Command R7B's) detokenize to nothing: shown as their text.
        this.shownTokens = tokens == null ? inner.shownTokens : new Map([...inner.shownTokens ?? [], [tokens.open, markers.open], [tokens.close, markers.close]]);
        this.phase = markers.opened ? "thinking" : "start";
    }

    public get reasoningTokens(): number {
        return this.thoughtTokens;
    }

    public get stopSequence(): string | null | undefined {
        return this.inner.stopSequence;
    }

    public grammar(): LlamaGrammarEvaluationState | undefined {
        return this.inner.grammar();
    }

    public tokenBias(remainingTokens: number): TokenBias | undefined {
        return this.inner.tokenBias(remainingTokens);
    }

    public push(text: string, remainingTokens: number): ShaperStep {
        // Past the thought, every token goes straight to the answer's shaper (nothing is held then).
        if (this.phase === "answer")
            return this.inner.push(text, remainingTokens);
        this.held += text;
        const events: GenerationEvent[] = [];
        if (this.phase === "start") {
            this.startTokens++;
            if (this.readStart())
                this.thoughtTokens += this.startTokens;
        } else if (this.phase === "thinking")
            this.thoughtTokens++;
        if (this.phase === "thinking")
            events.push(...this.readThought());
        if (this.phase === "answerStart") {
            this.held = this.held.trimStart();
            if (this.held !== "")
                this.phase = "answer";
        }
        if (this.phase !== "answer")
            return {events};
        const rest = this.held;
        this.held = "";
        const step = this.inner.push(rest, remainingTokens);
        return {...step, events: [...events, ...step.events]};
    }

    public end(rest: string): ShaperStep {
        const events = this.settle(rest);
        const step = this.inner.end(this.takeAnswer());
        return {...step, events: [...events, ...step.events]};
    }

    public cut(rest: string): GenerationEvent[] {
        const events = this.settle(rest);
        return [...events, ...this.inner.cut(this.takeAnswer())];
    }

    /**
     * The reply's first characters: the thought's opening marker, or the answer. Only the start of a
     * marker is held: reasoning models write it first, and a reply of whitespace held back would
     * miss a stop sequence of whitespace. Returns whether the thought opened.
     */
    private readStart(): boolean {
        if (this.held.startsWith(this.markers.open)) {
            this.held = this.held.slice(this.markers.open.length);
            this.phase = "thinking";
            return true;
        }
        if (!this.markers.open.startsWith(this.held))
            this.phase = "answer";
        return false;
    }

    /**
     * Thought text up to the closing marker, or up to a call's opening marker (a model that calls
     * before closing its thought: the call is the answer's); a possible start of either marker,
     * and trailing whitespace, stay held.
     */
    private readThought(): GenerationEvent[] {
        const close = this.held.indexOf(this.markers.close);
        const trigger = this.inner.callTrigger;
        const call = trigger == null ? -1 : this.held.indexOf(trigger);
        if (call >= 0 && (close < 0 || call < close)) {
            const thought = this.held.slice(0, call);
            this.held = this.held.slice(call);
            this.phase = "answer";
            return reasoning(this.unheldThought(thought.trimEnd()));
        }
        if (close >= 0) {
            const thought = this.held.slice(0, close);
            this.held = this.held.slice(close + this.markers.close.length);
            this.phase = "answerStart";
            return reasoning(this.unheldThought(thought.trimEnd()));
        }
        const held = Math.max(partialSuffixLength(this.held, this.markers.close), trigger == null ? 0 : partialSuffixLength(this.held, trigger));
        const beforeMarker = this.held.slice(0, this.held.length - held);
        const ready = beforeMarker.trimEnd();
        this.held = this.held.slice(ready.length);
        return reasoning(this.unheldThought(ready));
    }

    /** Leading whitespace of the thought is layout: dropped until its first word. */
    private unheldThought(text: string): string {
        if (!this.thoughtStarted)
            text = text.trimStart();
        this.thoughtStarted ||= text !== "";
        return text;
    }

    /** The reply ended: a thought never closed keeps what was held back, as thought. */
    private settle(rest: string): GenerationEvent[] {
        this.held += rest;
        if (this.phase === "start") {
            // Cut inside the opening marker: its start is not the answer.
            if (this.markers.open.startsWith(this.held))
                this.held = "";
            this.phase = "answer";
        }
        if (this.phase !== "thinking")
            return [];
        const thought = this.unheldThought(this.held.trimEnd());
        this.held = "";
        return reasoning(thought);
    }

    private takeAnswer(): string {
        const answer = this.phase === "answerStart" ? this.held.trimStart() : this.phase === "answer" ? this.held : "";
        this.held = "";
        return answer;
    }
}

function reasoning(text: string): GenerationEvent[] {
    return text === "" ? [] : [{type: "reasoning", text}];
}
