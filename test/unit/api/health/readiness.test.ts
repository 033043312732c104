import {describe, expect, it} from "vitest";
import {readinessOf, type ReadinessFacts} from "../../../../src/api/health/readiness.js";
import type {ModelOccupancy} from "../../../../src/models/modelOccupancy.js";

const servable = [{id: "tiny", status: "available" as const}];
const facts = (overrides: Partial<ReadinessFacts> = {}): ReadinessFacts => ({draining: false, models: servable, occupancy: [], maxQueue: 4, ...overrides});
const loaded = (activity: {running: number, waiting: number, sequences?: number}, id = "tiny"): ModelOccupancy => ({
    id, state: "loaded", holds: activity.running + activity.waiting, memoryBytes: 1, activity: {kvCacheUsage: 0, ...activity}
});

describe("readinessOf", () => {
    it("is ready with a servable model and room in its queue", () => {
        expect(readinessOf(facts())).toEqual({ready: true});
        expect(readinessOf(facts({occupancy: [loaded({running: 2, waiting: 3, sequences: 2})]}))).toEqual({ready: true});
    });

    it("is not ready once shutdown has begun, whatever else holds, with a Retry-After a drain lasts", () => {
        expect(readinessOf(facts({draining: true}))).toMatchObject({ready: false, reason: "shutting_down", retryAfterSeconds: 5});
        expect(readinessOf(facts({draining: true, models: []}))).toMatchObject({reason: "shutting_down"});
    });

    it("is not ready when no model can be served: an empty folder, or only unavailable files, saying which", () => {
        expect(readinessOf(facts({models: []}))).toMatchObject({ready: false, reason: "no_models", message: expect.stringContaining("holds no model")});
        const broken = [{id: "corrupt", status: "unavailable" as const}];
        expect(readinessOf(facts({models: broken}))).toMatchObject({reason: "no_models", message: expect.stringContaining("unavailable")});
        // One servable model among broken ones is enough.
        expect(readinessOf(facts({models: [...broken, {id: "tiny", status: "loaded" as const}]}))).toEqual({ready: true});
    });

    it("is not ready while a model's queue is full and every sequence busy, as its next request would be a 503", () => {
        const full = readinessOf(facts({occupancy: [loaded({running: 2, waiting: 4, sequences: 2})]}));
        expect(full).toMatchObject({ready: false, reason: "queue_full", retryAfterSeconds: 1, message: expect.stringContaining("tiny")});
        // A free sequence still takes a request, however long the queue's bound is reached.
        expect(readinessOf(facts({occupancy: [loaded({running: 1, waiting: 4, sequences: 2})]}))).toEqual({ready: true});
    });

    it("with --max-queue 0, is full exactly when every sequence is busy", () => {
        expect(readinessOf(facts({maxQueue: 0, occupancy: [loaded({running: 1, waiting: 0, sequences: 2})]}))).toEqual({ready: true});
        expect(readinessOf(facts({maxQueue: 0, occupancy: [loaded({running: 2, waiting: 0, sequences: 2})]}))).toMatchObject({reason: "queue_full"});
        // A model that is not loaded and that nobody waits for is no queue at all.
        expect(readinessOf(facts({maxQueue: 0, occupancy: [{id: "tiny", state: "loaded", holds: 0, memoryBytes: 1}]}))).toEqual({ready: true});
    });

    it("counts requests waiting for a model's load against the same bound, and adds up a model being freed and its next load", () => {
        const waitingForLoad: ModelOccupancy = {id: "tiny", state: "waiting", holds: 4, memoryBytes: 0};
        expect(readinessOf(facts({occupancy: [waitingForLoad]}))).toMatchObject({reason: "queue_full"});
        const freed = loaded({running: 2, waiting: 2, sequences: 2});
        const nextLoad: ModelOccupancy = {id: "tiny", state: "loading", holds: 2, memoryBytes: 0};
        expect(readinessOf(facts({occupancy: [freed, nextLoad]}))).toMatchObject({reason: "queue_full"});
        expect(readinessOf(facts({occupancy: [freed]}))).toEqual({ready: true});
    });
});
