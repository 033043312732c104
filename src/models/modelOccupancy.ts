import type {ModelActivity} from "../engine/loadedModel.js";
import type {Residency, ResidencyState} from "./residency.js";

/** One model's share of the server now, as a metrics scrape reads it. */
export type ModelOccupancy = {
    id: string,
    state: ResidencyState,
    /** Requests holding it: waiting for it to load, queued for a sequence, preparing a prompt, or generating. */
    holds: number,
    /** What it holds in memory once loaded (llama.cpp's account, else the estimate); 0 before. */
    memoryBytes: number,
    /** Its sequences' use; only while it is loaded and not being freed (a disposed model's getters throw). */
    activity?: ModelActivity
};

/**
 * The residencies that hold or await memory, failed ones left out. A model being freed and its next
 * load can both be there under one id: whoever reads this adds them up.
 */
export function occupancyOf(residencies: Iterable<Residency>): ModelOccupancy[] {
    return [...new Set(residencies)].filter((residency) => residency.state !== "failed").map((residency) => ({
        id: residency.id,
        state: residency.state,
        holds: residency.holds,
        memoryBytes: residency.state === "loaded" ? residency.bytes : 0,
        activity: residency.loaded ? residency.model?.activity?.() : undefined
    }));
}
