import {describe, expect, it} from "vitest";
import {fitsAlone, overBudget, placeModel, type Occupant} from "../../../src/models/memoryPlacement.js";

type Named = Occupant & {id: string};

function occupant(id: string, bytes: number, extra: Partial<Occupant> = {}): Named {
    return {id, bytes, loaded: true, unloading: false, idle: true, pinned: false, lastUsed: 0, ...extra};
}

const ids = (occupants: readonly Named[]) => occupants.map((entry) => entry.id);

describe("placeModel", () => {
    const budget = {bytes: 1000, models: Number.POSITIVE_INFINITY};

    it("loads at once what fits beside the others", () => {
        expect(placeModel(400, [occupant("a", 600)], budget)).toEqual({verdict: "fits"});
    });

    it("unloads idle models, least recently used first, and only as many as make room", () => {
        const occupants = [occupant("recent", 300, {lastUsed: 3}), occupant("old", 300, {lastUsed: 1}), occupant("middle", 300, {lastUsed: 2})];
        const placement = placeModel(500, occupants, budget);
        expect(placement.verdict).toBe("makeRoom");
        if (placement.verdict === "makeRoom") {
            expect(ids(placement.idle)).toEqual(["old", "middle"]);
            expect(placement.busy).toEqual([]);
        }
    });

    it("prefers idle models to busy ones, even ones used more recently", () => {
        const placement = placeModel(500, [occupant("busy", 500, {idle: false, lastUsed: 1}), occupant("idle", 500, {lastUsed: 9})], budget);
        expect(placement).toMatchObject({verdict: "makeRoom", busy: []});
        if (placement.verdict === "makeRoom")
            expect(ids(placement.idle)).toEqual(["idle"]);
    });

    it("asks busy models to go once their requests end when idle ones are not enough", () => {
        const placement = placeModel(700, [occupant("idle", 300, {lastUsed: 1}), occupant("busy", 600, {idle: false, lastUsed: 2})], budget);
        expect(placement.verdict).toBe("makeRoom");
        if (placement.verdict === "makeRoom") {
            expect(ids(placement.idle)).toEqual(["idle"]);
            expect(ids(placement.busy)).toEqual(["busy"]);
        }
    });

    it("waits, choosing nobody, when memory already being freed will do, or nothing it may unload would", () => {
        expect(placeModel(500, [occupant("going", 600, {unloading: true}), occupant("other", 400)], budget)).toEqual({verdict: "wait"});
        // Pinned (keep-alive -1) and still-loading models are never chosen.
        expect(placeModel(500, [occupant("pinned", 600, {pinned: true}), occupant("loading", 300, {loaded: false}), occupant("idle", 100)], budget))
            .toEqual({verdict: "wait"});
    });

    it("counts models against the count limit as well as bytes", () => {
        const placement = placeModel(10, [occupant("a", 10, {lastUsed: 1}), occupant("b", 10, {lastUsed: 2})], {bytes: Number.POSITIVE_INFINITY, models: 2});
        expect(placement.verdict).toBe("makeRoom");
        if (placement.verdict === "makeRoom")
            expect(ids(placement.idle)).toEqual(["a"]);
    });

    it("leaves earlier waiting loads the room they need", () => {
        expect(placeModel(300, [occupant("a", 500)], budget, {bytes: 300, models: 1})).toMatchObject({verdict: "makeRoom"});
        expect(placeModel(200, [occupant("a", 500)], budget, {bytes: 300, models: 1})).toEqual({verdict: "fits"});
    });

    it("finds the idle models to unload, least recently used first, when the loaded ones take more than the budget", () => {
        const occupants = [occupant("busy", 500, {idle: false, lastUsed: 0}), occupant("new", 300, {lastUsed: 3}), occupant("old", 300, {lastUsed: 1}),
            occupant("pinned", 100, {pinned: true, lastUsed: 0})];
        expect(ids(overBudget(occupants, budget))).toEqual(["old"]);
        // Busy and pinned ones stay, even if that leaves the budget exceeded.
        expect(ids(overBudget(occupants, {bytes: 500, models: Number.POSITIVE_INFINITY}))).toEqual(["old", "new"]);
        expect(overBudget(occupants.slice(1), budget)).toEqual([]);
        expect(ids(overBudget(occupants.slice(1, 3), {bytes: Number.POSITIVE_INFINITY, models: 1}))).toEqual(["old"]);
    });

    it("says whether a model could fit with nothing else loaded", () => {
        expect(fitsAlone(1000, budget)).toBe(true);
        expect(fitsAlone(1001, budget)).toBe(false);
        expect(fitsAlone(1, {bytes: 10, models: 0})).toBe(false);
    });
});
