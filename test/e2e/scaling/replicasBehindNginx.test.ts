import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {BackgroundLoad} from "./backgroundLoad.js";
import {converse, sendTurn, type SessionSource, type TurnResult} from "./chatTurns.js";
import {nginxPath, NginxProxy, noNginxReason, referenceConfig, replicaHeader, testCopyOf} from "./nginxProxy.js";
import {freePort, ReplicaFleet, type Replica} from "./replicaFleet.js";

/** The key clients use through nginx; the baseline key's requests get a cache partition of their own (several keys). */
const fleetKey = "fleet-key";
const baselineKey = "baseline-key";
const sources: SessionSource[] = ["x-chatserve-session", "session_id", "x-claude-code-session-id", "prompt_cache_key", "metadata.user_id"];

/**
 * Three chatserve processes (the built CLI, a tiny fixture model, one thread each) behind nginx
 * running docs/scaling/nginx.conf with only its upstream servers and port replaced. Each test drives
 * it as clients would and checks what a client sees, and nginx's record of where requests went
 * (the test copy's one added header, $upstream_addr).
 */
describe.skipIf(nginxPath == null)(`chatserve replicas behind nginx${nginxPath == null ? ` (skipped: ${noNginxReason})` : ""}`, () => {
    let modelsDir: string;
    let fleet: ReplicaFleet;
    let proxy: NginxProxy;

    beforeAll(async () => {
        modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-fleet-models-"));
        await fs.symlink(await buildTinyChatModel(), path.join(modelsDir, "tiny.gguf"));
        fleet = await ReplicaFleet.start(3, modelsDir, ["--api-key", fleetKey, "--api-key", baselineKey, "--parallel", "2", "--ctx-size", "512"]);
        const port = await freePort();
        proxy = await NginxProxy.start(testCopyOf(await fs.readFile(referenceConfig, "utf8"), fleet.replicas.map((replica) => replica.address), port), port);
    });

    afterAll(async () => {
        await proxy?.stop();
        await fleet?.close();
        await fs.rm(modelsDir, {recursive: true, force: true});
    });

    it("keeps every turn of a conversation on one replica, turn 2 and 3 reusing the cache as on a single server", async () => {
        const firstMessage = "Affinity check: name three colours of the sea.";
        // A single server: the same conversation straight to one replica, in a cache partition of its own.
        const single = await converse({baseUrl: `http://${fleet.replicas[0]!.address}`, apiKey: baselineKey, conversation: "baseline"}, firstMessage, 3);
        const behindNginx = await converse({baseUrl: proxy.url, apiKey: fleetKey, conversation: "affinity-1", source: "x-chatserve-session"}, firstMessage, 3);

        expect(behindNginx.map(failure)).toEqual([null, null, null]);
        expect(new Set(behindNginx.map(answeredBy)).size).toBe(1);
        expect(behindNginx.map((turn) => turn.reply)).toEqual(single.map((turn) => turn.reply));
        expect(behindNginx.slice(1).map((turn) => turn.cachedTokens)).toEqual(single.slice(1).map((turn) => turn.cachedTokens));
        // Turn 2 reused at least all of turn 1's prompt.
        expect(behindNginx[1]!.cachedTokens).toBeGreaterThanOrEqual(behindNginx[0]!.promptTokens);
    });

    it("keeps conversations together by each key clients send (headers and body), and spreads different ones over every replica", async () => {
        // One conversation at a time: a replica's two sequences then still hold the turn before (run all
        // at once, other conversations would take them over in between: a cache's size, not affinity).
        const runs: Array<{source: SessionSource, turns: TurnResult[]}> = [];
        for (const source of sources) {
            for (let index = 0; index < 10; index++) {
                const conversation = `${source}-conversation-${index}`;
                runs.push({source, turns: await converse({baseUrl: proxy.url, apiKey: fleetKey, conversation, source}, `Conversation ${conversation}: what comes next?`, 2)});
            }
        }

        for (const {source, turns} of runs) {
            expect(turns.map(failure), source).toEqual([null, null]);
            expect(answeredBy(turns[1]!), source).toBe(answeredBy(turns[0]!));
            expect(turns[1]!.cachedTokens, source).toBeGreaterThanOrEqual(turns[0]!.promptTokens);
        }
        // Each source's key is what nginx hashes (not the fallback, one client's address and key, which would put them all on one replica).
        for (const source of sources)
            expect(new Set(runs.filter((run) => run.source === source).map((run) => answeredBy(run.turns[0]!))).size, source).toBeGreaterThan(1);
        const perReplica = countBy(runs.map((run) => answeredBy(run.turns[0]!)));
        expect([...perReplica.keys()].sort()).toEqual(fleet.replicas.map((replica) => replica.address).sort());
    });

    it("keeps the official SDKs' conversations together by the keys their callers set: prompt_cache_key, metadata.user_id", async () => {
        const openai = new OpenAI({baseURL: `${proxy.url}/v1`, apiKey: fleetKey, maxRetries: 0});
        const anthropic = new Anthropic({baseURL: proxy.url, apiKey: fleetKey, maxRetries: 0});
        const openAiTurns: Array<{replica: string | null, cached: number, prompt: number}> = [];
        const messages: OpenAI.ChatCompletionMessageParam[] = [{role: "user", content: "SDK conversation: say something."}];
        for (let turn = 0; turn < 2; turn++) {
            const {data, response} = await openai.chat.completions.create({model: "tiny", messages, max_tokens: 6, temperature: 0, prompt_cache_key: "sdk-openai-1"}).withResponse();
            openAiTurns.push({replica: response.headers.get(replicaHeader), cached: data.usage!.prompt_tokens_details!.cached_tokens!, prompt: data.usage!.prompt_tokens});
            messages.push({role: "assistant", content: data.choices[0]!.message.content ?? ""}, {role: "user", content: "And then?"});
        }
        expect(openAiTurns[1]!.replica).toBe(openAiTurns[0]!.replica);
        expect(openAiTurns[1]!.cached).toBeGreaterThanOrEqual(openAiTurns[0]!.prompt);

        const anthropicTurns: Array<{replica: string | null, cached: number, prompt: number}> = [];
        const turns: Anthropic.MessageParam[] = [{role: "user", content: "SDK conversation: say something."}];
        for (let turn = 0; turn < 2; turn++) {
            const {data, response} = await anthropic.messages.create({model: "tiny", messages: turns, max_tokens: 6, metadata: {user_id: "sdk-anthropic-1"}}).withResponse();
            anthropicTurns.push({replica: response.headers.get(replicaHeader), cached: data.usage.cache_read_input_tokens ?? 0, prompt: data.usage.input_tokens + (data.usage.cache_read_input_tokens ?? 0)});
            const text = data.content.map((block) => block.type === "text" ? block.text : "").join("");
            turns.push({role: "assistant", content: text === "" ? "…" : text}, {role: "user", content: "And then?"});
        }
        expect(anthropicTurns[1]!.replica).toBe(anthropicTurns[0]!.replica);
        expect(anthropicTurns[1]!.cached).toBeGreaterThan(0);
    });

    it("loses no request that had not begun streaming when a replica is killed mid-load: they fail over to the others", async () => {
        const victim = fleet.replicas[1]!;
        try {
            const victimConversations = await conversationsServedBy(victim, 60);
            const load = new BackgroundLoad(proxy.url, fleetKey);
            await load.progress(6);
            // Frozen first, so that requests reach it and wait there; then killed under them.
            process.kill(victim.child!.pid!, "SIGSTOP");
            const stranded = victimConversations.slice(0, 4).map(async (conversation, index) => await sendTurn({
                baseUrl: proxy.url, apiKey: fleetKey, conversation, source: "x-chatserve-session", stream: index % 2 === 0,
                messages: [{role: "user", content: `Stranded request ${index}.`}]
            }));
            // The load cannot be waited on now (its clients end up waiting on the frozen replica too): a
            // moment lets nginx pass the requests on. Reached before the kill or after, each must be resent.
            await new Promise((resolve) => setTimeout(resolve, 500));
            await fleet.stop(victim, "SIGKILL");
            const failedOver = await Promise.all(stranded);
            await load.progress(8);
            const results = await load.stop();

            expect(failedOver.map(failure)).toEqual([null, null, null, null]);
            for (const result of failedOver) {
                expect(result.replicas[0]).toBe(victim.address);
                expect(result.replicas.at(-1)).not.toBe(victim.address);
            }
            // Only a reply already streaming from the killed replica may be lost, and then the client is told (a cut stream).
            expect(results.filter((result) => !result.ok && !result.startedStreaming).map(failure)).toEqual([]);
        } finally {
            await fleet.stop(victim, "SIGKILL");
            await fleet.launch(victim);
        }
    });

    it("completes a rolling restart of every replica under load with no client error", async () => {
        const load = new BackgroundLoad(proxy.url, fleetKey);
        await load.progress(6);
        for (const replica of fleet.replicas) {
            // SIGTERM: readiness turns 503, replies under way finish, the listener closes, the process exits 0.
            expect(await fleet.stop(replica, "SIGTERM")).toBe(0);
            await fleet.launch(replica);
            await load.progress(6);
        }
        const results = await load.stop();

        expect(results.map(failure).filter((error) => error != null)).toEqual([]);
        // Every restarted replica is back in rotation: each answers its own conversations again.
        for (const replica of fleet.replicas)
            expect((await conversationsServedBy(replica, 60)).length, replica.address).toBeGreaterThan(0);
    });

    /** Conversations (of `count` probes) that nginx sends to `replica`: at least four when they hash there. */
    async function conversationsServedBy(replica: Replica, count: number): Promise<string[]> {
        const probes = await Promise.all(Array.from({length: count}, async (_unused, index) => {
            const conversation = `probe-${index}`;
            return {conversation, result: await sendTurn({baseUrl: proxy.url, apiKey: fleetKey, conversation, source: "x-chatserve-session", messages: [{role: "user", content: "Probe."}]})};
        }));
        expect(probes.map(({result}) => failure(result)).filter((error) => error != null)).toEqual([]);
        const served = probes.filter(({result}) => answeredBy(result) === replica.address).map(({conversation}) => conversation);
        expect(served.length, `probes answered by ${replica.address}`).toBeGreaterThanOrEqual(4);
        return served;
    }
});

/** The replica that answered: the last one nginx tried. */
function answeredBy(result: TurnResult): string {
    return result.replicas.at(-1) ?? "(not through nginx)";
}

function failure(result: TurnResult): string | null {
    return result.ok ? null : result.error ?? `status ${result.status}`;
}

function countBy(values: readonly string[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const value of values)
        counts.set(value, (counts.get(value) ?? 0) + 1);
    return counts;
}
