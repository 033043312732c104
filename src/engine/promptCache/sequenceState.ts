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
 */
const scratchFolder = existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();

function scratchFile(): string {
    return path.join(scratchFolder, `chatserve-kv-${process.pid}-${randomBytes(6).toString("hex")}`);
}

/** The state of every token `sequence` holds, as llama.cpp's sequence state file. */
export async function saveSequenceState(sequence: LlamaContextSequence): Promise<Buffer> {
    const file = scratchFile();
    try {
        await sequence.saveStateToFile(file);
        return await fs.readFile(file);
    } finally {
        await fs.rm(file, {force: true});
    }
}

/**
 * Replaces what `sequence` holds with `state`, which holds `tokens` (checked by the caller against
 * the model's layout and a checksum before this: llama.cpp trusts the bytes). llama.cpp keeps tokens
 * unsigned: an image's placeholders (negative) are put back as chatserve wrote them. Throws, leaving
 * the sequence empty, if llama.cpp refuses it.
 */
export async function loadSequenceState(sequence: LlamaContextSequence, state: Buffer, tokens: Int32Array): Promise<void> {
    const file = scratchFile();
    try {
        await fs.writeFile(file, state);
        await sequence.loadStateFromFile(file, {acceptRisk: true});
        const internals = sequenceState(sequence);
        if (internals._contextTokens.length !== tokens.length) {
            await sequence.clearHistory();
            throw new Error(`a restored state holds ${internals._contextTokens.length} tokens, its entry ${tokens.length}`);
        }
        internals._contextTokens = Array.from(tokens) as Token[];
    } catch (error) {
        await sequence.clearHistory().catch(() => undefined);
        throw error;
    } finally {
        await fs.rm(file, {force: true});
    }
}
