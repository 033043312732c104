import type {Token} from "node-llama-cpp";
import {hashRunAt} from "./ngramIndex.js";

/** Tokens that must agree before the pool claims to know what comes next: one more than lookup's own 3, since the pool mixes many texts. */
export const poolRunLength = 4;
/** More tokens than a step keeps (1 + a draft of at most 16) are a prompt's, added in place. */
const longestStep = 64;
/** Slots of one pool: 2^18, two 4-byte arrays, 2 MiB, whatever the traffic (about the n-grams of 250,000 tokens of text). */
const slotBits = 18;

/**
 * What followed each run of `poolRunLength` tokens in the texts a model has read and written
 * lately, shared by all its sequences: agents send the same files again and again, so a run seen in
 * one request's prompt or reply is a draft for the next (llama-server's `ngram-mod`).
 *
 * Bounded: a fixed table of hashed runs, each slot the latest token that followed a run hashing
 * there, checked by a second hash of the run (a slot another run took answers nothing). A new run
 * overwrites the slot's old one, so memory never grows; a wrong answer only costs a rejected draft.
 *
 * Safe under concurrency: every call is synchronous (one JavaScript thread), and each writer adds
 * the runs of its own stream of tokens (PoolWriter): two sequences' tokens never make one run.
 */
export class LookupPool {
    private readonly next = new Int32Array(1 << slotBits).fill(-1);
    private readonly check = new Uint32Array(1 << slotBits);

    /** Bytes the pool holds (its two tables), for the docs' bound and the tests. */
    public get bytes(): number {
        return this.next.byteLength + this.check.byteLength;
    }

    /** Records that `tokens[end]` followed the run of `poolRunLength` tokens before it. */
    public addAt(tokens: readonly Token[], end: number): void {
        const slot = slotOf(tokens, end);
        this.next[slot] = tokens[end]!;
        this.check[slot] = checkOf(tokens, end);
    }

    /** Up to `count` tokens expected after `context`, each the pool's answer for the run before it. */
    public propose(context: readonly Token[], count: number): Token[] {
        if (context.length < poolRunLength)
            return [];
        const run = context.slice(-poolRunLength);
        const proposed: Token[] = [];
        while (proposed.length < count) {
            const slot = slotOf(run, poolRunLength);
            const token = this.next[slot]!;
            if (token < 0 || this.check[slot] !== checkOf(run, poolRunLength))
                break;
            proposed.push(token as Token);
            run.shift();
            run.push(token as Token);
        }
        return proposed;
    }
}

/**
 * Adds one stream of tokens (a prompt, then its reply as it grows) to a pool, run by run: it keeps
 * its own last tokens, so what other sequences add meanwhile never joins its runs.
 */
export class PoolWriter {
    /** The last `poolRunLength` tokens (fewer at first), and for a moment the one after them. */
    private recent: Token[] = [];

    public constructor(private readonly pool: LookupPool) {}

    /** The stream's last tokens (the context a proposal continues): the writer's own window, which the next append changes. */
    public get tail(): readonly Token[] {
        return this.recent;
    }

    /**
     * Adds the runs the new tokens complete: a whole prompt, read in place, on every request; then a
     * step's tokens (one, or a draft's accepted run) each through the window of the last ones, nothing
     * allocated per token.
     */
    public append(tokens: readonly Token[]): void {
        if (tokens.length > longestStep) {
            const stream = this.recent.length === 0 ? tokens : this.recent.concat(tokens);
            for (let end = poolRunLength; end < stream.length; end++)
                this.pool.addAt(stream, end);
            this.recent = stream.slice(-poolRunLength);
            return;
        }
        for (const token of tokens) {
            this.recent.push(token);
            if (this.recent.length > poolRunLength) {
                this.pool.addAt(this.recent, poolRunLength);
                this.recent.shift();
            }
        }
    }
}

/** The slot of the run of `poolRunLength` tokens before `end`: its hash in ngramIndex.ts. */
function slotOf(tokens: readonly Token[], end: number): number {
    return hashRunAt(tokens, end, poolRunLength) & ((1 << slotBits) - 1);
}

/** A second hash of the same run, independent of its slot's, that checks a slot holds this run's answer. */
function checkOf(tokens: readonly Token[], end: number): number {
    let check = 0x9747b28c;
    for (let index = end - poolRunLength; index < end; index++)
        check = Math.imul(check ^ tokens[index]!, 0x5bd1e995) ^ (check >>> 15);
    return check >>> 0;
}
