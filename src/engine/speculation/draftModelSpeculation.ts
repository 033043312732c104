import type {Token} from "node-llama-cpp";
import {AcceptanceRate, draftLength, type DraftCost} from "./draftLength.js";
import type {DraftModelLink, ModelDrafts} from "./modelDrafts.js";
import {sharedCost} from "./speculation.js";

/** A draft model starts half believed: a real pairing (a 0.5B draft for a 7B coder) has most of its tokens accepted; 3 tokens at first, as llama-server drafts. */
const draftModelPrior = 0.6;
/** As speculation.ts: past 16, each drafted token adds less than it costs the batch's other streams. */
const longestDraft = 16;
/** While its drafts do not pay, the draft model is still tried on one token every this many steps, so it drafts again once it is right again. */
const probeEvery = 8;

/**
 * One generation's use of its model's draft model, after the request's own sources (speculation.ts:
 * a prediction, lookup): it drafts only for a step they have nothing worth sending for, since its
 * guesses cost work (the draft model's own steps) where theirs are free. Its draft length follows
 * its acceptance rate as theirs do (draftLength.ts), with a drafted token's cost being its row in the
 * target's batch plus a draft step (`stepCost`, the models' size ratio), unless chatserve.json fixes
 * it (`draft_tokens`). A draft model as large as its target never pays on that rule; a fixed length
 * drafts anyway (a test, or a measurement of the cost).
 */
export class DraftModelSpeculation {
    private readonly rate = new AcceptanceRate(draftModelPrior, 2);
    private pending: {tokens: Token[], drafted: boolean} | undefined;
    private sinceProbe = 0;
    public readonly counts = {drafted: 0, accepted: 0};

    /** `cost`: a draft's cost in target steps (its rows in the batch, its pass), as for the other sources. */
    public constructor(private readonly source: ModelDrafts, private readonly link: DraftModelLink, private readonly cost: DraftCost) {}

    /**
     * The draft model's draft for the next step, at most `room` tokens; empty: a plain step. `streams`:
     * how many streams share the batch, whom its rows slow too (speculation.ts's sharedCost).
     */
    public async draft(room: number, streams = 1): Promise<Token[]> {
        this.pending = undefined;
        if (room <= 0)
            return [];
        const shared = sharedCost(this.cost, streams);
        const cost = {token: shared.token + this.link.stepCost, pass: shared.pass};
        const worth = this.link.tokens != null ? Math.min(room, this.link.tokens) : draftLength(this.rate.rate, cost, Math.min(longestDraft, room));
        if (worth > 0) {
            const tokens = await this.source.propose(worth);
            this.pending = {tokens, drafted: true};
            return tokens;
        }
        // Not worth a draft: now and then one guessed token, scored and not sent.
        if (++this.sinceProbe >= probeEvery) {
            this.sinceProbe = 0;
            this.pending = {tokens: await this.source.propose(1), drafted: false};
        }
        return [];
    }

    /** The step's kept tokens: the draft's outcome (if it drafted or probed this step), then the draft model follows the reply. */
    public settle(kept: readonly Token[]): void {
        const pending = this.pending;
        this.pending = undefined;
        if (pending != null && pending.tokens.length > 0) {
            let accepted = 0;
            while (accepted < pending.tokens.length && kept[accepted] === pending.tokens[accepted])
                accepted++;
            this.rate.observe(accepted, accepted < pending.tokens.length);
            if (pending.drafted) {
                this.counts.drafted += pending.tokens.length;
                this.counts.accepted += accepted;
            }
        }
        this.source.observe(kept);
    }
}
