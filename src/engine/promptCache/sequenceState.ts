import {randomBytes} from "node:crypto";
import {existsSync} from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type {LlamaContextSequence, Token} from "node-llama-cpp";
import {sequenceState} from "../llamaInternals.js";

/**
 * A sequence's KV state to and from bytes in memory. node-llama-cpp (3.22) saves and loads a
 * sequence's state only through a file, so the bytes pass through one in a RAM-backed folder
 * (/dev/shm where there is one): a memory copy, not a disk write. The file lives only for the call.
 * A /dev/shm too small for it (Docker gives containers 64 MB by default) sends it to the OS's
 * temporary folder instead.
 */
const scratchFolders = [...existsSync("/dev/shm") ? ["/dev/shm"] : [], os.tmpdir()];

/** Runs `work` with a scratch file in the first folder where it succeeds; the file is removed after each try. */
async function withScratchFile<T>(work: (file: string) => Promise<T>): Promise<T> {
    let failure: unknown;
    for (const folder of scratchFolders) {
        const file = path.join(folder, `chatserve-kv-${process.pid}-${randomBytes(6).toString("hex")}`);
        try {
            return await work(file);
        } catch (error) {
            failure = error;
        } finally {
            await fs.rm(file, {force: true});
        }
    }
    throw failure;
}

/** The state of every token `sequence` holds, as llama.cpp's sequence state file. */
export function saveSequenceState(sequence: LlamaContextSequence): Promise<Buffer> {
    return withScratchFile(async (file) => {
        await sequence.saveStateToFile(file);
        return await fs.readFile(file);
    });
}

/**
 * Replaces what `sequence` holds with `state`, which holds `tokens` (checked by the caller against
 * the model's layout and a checksum before this: llama.cpp trusts the bytes). llama.cpp keeps tokens
 * unsigned: an image's placeholders (negative) are put back as chatserve wrote them. Throws, leaving
 * the sequence empty, if llama.cpp refuses it.
 */
export async function loadSequenceState(sequence: LlamaContextSequence, state: Buffer, tokens: Int32Array): Promise<void> {
    try {
        await withScratchFile(async (file) => {
            await fs.writeFile(file, state);
            await sequence.loadStateFromFile(file, {acceptRisk: true});
        });
        const internals = sequenceState(sequence);
        if (internals._contextTokens.length !== tokens.length)
            throw new Error(`a restored state holds ${internals._contextTokens.length} tokens, its entry ${tokens.length}`);
        internals._contextTokens = Array.from(tokens) as Token[];
    } catch (error) {
        await sequence.clearHistory().catch(() => undefined);
        throw error;
    }
}
