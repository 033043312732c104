import type {Token} from "node-llama-cpp";
import {DraftLedger} from "./draftLedger.js";
import {AcceptanceRate, draftLength, draftPays, type DraftCost} from "./draftLength.js";
import type {DraftSource, DraftSourceName} from "./draftSources.js";

/** What a generation drafted and what of it was accepted, by source (/metrics). */
export type DraftCounts = Partial<Record<DraftSourceName, {drafted: number, accepted: number}>>;

/**
 * What a draft costs where `streams` streams share the batch, in tokens of their output: a pass of n
 * rows takes 1 + token·(n − 1) one-row steps (docs/speculative-decoding.md), so s streams make s
 * tokens in 1 + token·(s − 1), and a delay of one row's time holds up all of them: s·token/(1 +
 * token·(s − 1)) of their tokens, and the pass's fixed work likewise. One stream: the cost itself; a
 * token at 0.15 beside three other streams: 0.41. A draft that pays for its own stream can slow the
 * batch it rides in by more than it gains.
 */
export function sharedCost(cost: DraftCost, streams: number): DraftCost {
    // A lone stream's step (the common case, every token) is the cost itself: nothing allocated.
    if (streams <= 1)
        return cost;
    const scale = streams / (1 + cost.token * (streams - 1));
    return {token: cost.token * scale, pass: cost.pass * scale};
}

/** A source with what it is believed to be worth: its prior acceptance rate (worth 2 observed tokens). */
export type RatedSource = {source: DraftSource, prior: number};

/** The longest draft: past it, each token adds less than it costs the batch's other streams (a step of 17 tokens is ~3.4 plain ones on 2 cores). */
const longestDraft = 16;

/**
 * One generation's speculation: before each step, the draft worth sending (from the source with a
 * guess whose acceptance is highest, as long as draftLength.ts says it pays and the source's ledger,
 * draftLedger.ts, says its drafts have been paying); after it, what was kept, which updates each
 * source's acceptance rate and ledger. A source too poor to draft from is still scored, for free, on
 * whether its first guessed token came true, so it starts drafting again once it is right again:
 * speculation switches itself off where it does not pay (prose, random text, sampled text on a tiny
 * model) and back on where it does.
 */
export class Speculation {
    private readonly sources: SourceEntry[];
    private pending: Array<{entry: SourceEntry, tokens: Token[], drafted: boolean}> = [];
    public readonly counts: DraftCounts = {};

    /** `cost`: a draft's cost in plain steps (draftLength.ts). */
    public constructor(sources: readonly RatedSource[], private readonly cost: DraftCost) {
        this.sources = sources.map(({source, prior}) => ({source, rate: new AcceptanceRate(prior, 2), ledger: new DraftLedger()}));
    }

    /**
     * The draft for the next step, at most `room` tokens (what is left of the reply's budget); empty: a
     * plain step. `streams`: how many streams share the batch (DecodeSteps.streams).
     */
    public draft(room: number, streams = 1): Token[] {
        const cost = sharedCost(this.cost, streams);
        const guesses = this.sources.map((entry) => {
            const rate = entry.rate.rate;
            const asked = draftLength(rate, cost, Math.min(longestDraft, room));
            const guess = entry.source.propose(Math.max(asked, 1));
            // A guess shorter than the length asked for must pay at its own length, its pass and all.
            const called = Math.min(asked, guess.length);
            const pays = called > 0 && (called === asked || draftPays(rate, cost, called));
            if (pays)
                entry.ledger.judge(guess.slice(0, called), cost.pass + cost.token * called);
            return {entry, worth: pays && entry.ledger.pays ? called : 0, guess};
        }).filter(({guess}) => guess.length > 0);
        // The guess expected to save the most steps drafts (the first of equals). A prediction, lookup
        // in the request's own text and the shared pool can all have one; a short guess from a source
        // a little more often right must not displace a long one (the pool's chain may end after two
        // tokens where the prediction goes on for sixteen).
        let chosen: typeof guesses[number] | undefined;
        for (const guess of guesses)
            if (guess.worth > 0 && (chosen == null || expectedAccepted(guess) > expectedAccepted(chosen)))
                chosen = guess;
        this.pending = guesses.map(({entry, worth, guess}) => ({entry, tokens: guess.slice(0, entry === chosen?.entry ? worth : 1), drafted: entry === chosen?.entry}));
        return chosen == null ? [] : chosen.guess.slice(0, chosen.worth);
    }

    /** The step's kept tokens (speculation/draftVerification.ts): rates and counts, then every source follows the reply. */
    public settle(kept: readonly Token[]): void {
        for (const {entry, tokens, drafted} of this.pending) {
            let accepted = 0;
            while (accepted < tokens.length && kept[accepted] === tokens[accepted])
                accepted++;
            entry.rate.observe(accepted, accepted < tokens.length);
            if (drafted) {
                const counts = this.counts[entry.source.name] ??= {drafted: 0, accepted: 0};
                counts.drafted += tokens.length;
                counts.accepted += accepted;
            }
        }
        this.pending = [];
        for (const {source, ledger} of this.sources) {
            ledger.follow(kept);
            source.observe(kept);
        }
    }
}

type SourceEntry = {source: DraftSource, rate: AcceptanceRate, ledger: DraftLedger};

/** The tokens of a guess expected to be accepted: the i-th is used only if all before it were, p^i. */
function expectedAccepted({entry, worth, guess}: {entry: SourceEntry, worth: number, guess: readonly Token[]}): number {
    const p = entry.rate.rate;
    let expected = 0;
    for (let i = 1, used = p; i <= Math.min(worth, guess.length); i++, used *= p)
        expected += used;
    return expected;
}
