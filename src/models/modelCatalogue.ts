import type {Stats} from "node:fs";
import fs from "node:fs/promises";
import type {Logger} from "pino";
import {inspectGguf, inspectProjector, type GgufSummary} from "./ggufInspection.js";
import {UnloadableModelError} from "./ggufLoadChecks.js";
import type {ModelDescriptor} from "./modelDescriptor.js";
import {projectorRefusal} from "./projectorCheck.js";
import {findModelFiles, isMomentaryFailure, type ModelFileGroup} from "./modelFiles.js";

export type Catalogue = {
    list(): ModelDescriptor[],
    find(id: string): ModelDescriptor | undefined,
    /** Rescans the folder now (a request for an unknown id calls this before answering 404). */
    refresh(): Promise<void>
};

/**
 * The models folder, as a list of descriptors kept current while the server runs:
 * a rescan every few seconds picks up added, changed and removed files, re-reading only the
 * headers of files whose size or modification time changed. A file that cannot be read is
 * listed as unavailable with the reason; it never stops the scan or the server.
 */
export class ModelCatalogue implements Catalogue {
    private descriptors = new Map<string, ModelDescriptor>();
    private readonly signatures = new Map<string, string>();
    private refreshing: Promise<void> | null = null;
    /** The scan after the running one, for callers that came while it ran. */
    private nextRefresh: Promise<void> | null = null;
    private timer: NodeJS.Timeout | null = null;

    public constructor(
        private readonly modelsDir: string,
        private readonly logger: Logger,
        private readonly inspect: (path: string) => Promise<GgufSummary> = inspectGguf,
        private readonly checkProjector: (path: string) => Promise<void> = inspectProjector
    ) {}

    public list(): ModelDescriptor[] {
        return [...this.descriptors.values()];
    }

    public find(id: string): ModelDescriptor | undefined {
        return this.descriptors.get(id);
    }

    /**
     * Resolves once a scan that began after this call has updated the list: one already under way
     * may have read the folder before a file the caller looks for arrived (a request for a model
     * copied in a moment ago got a 404). Callers that come meanwhile share that next scan.
     */
    public refresh(): Promise<void> {
        if (this.refreshing == null) {
            this.refreshing = this.scan().finally(() => {
                this.refreshing = null;
            });
            return this.refreshing;
        }
        this.nextRefresh ??= this.refreshing.catch(() => undefined).then(() => {
            this.nextRefresh = null;
            // A scan someone started since the last one ended began after these callers came too.
            return this.refreshing ?? this.refresh();
        });
        return this.nextRefresh;
    }

    /** Rescans every `intervalMs`, calling `afterRescan` once each rescan has updated the list. */
    public watch(intervalMs: number, afterRescan: () => void = () => {}): void {
        this.timer = setInterval(() => {
            this.refresh().then(afterRescan, (error: unknown) => this.logger.error({event: "models_rescan_failed", err: error}));
        }, intervalMs);
        this.timer.unref();
    }

    public close(): void {
        if (this.timer != null)
            clearInterval(this.timer);
    }

    private async scan(): Promise<void> {
        const groups = await findModelFiles(this.modelsDir);
        const next = new Map<string, ModelDescriptor>();
        for (const group of groups) {
            // The projector's stats too: a projector replaced in place is checked again.
            const stats = await statAll(group.projector == null ? group.files : [...group.files, group.projector]);
            if (stats == null)
                continue; // deleted while scanning, or unreadable

            const known = this.descriptors.get(group.id);

            // A projector paired or unpaired since changes what the model is served with.
            const signature = `${group.files.join("|")}:${stats.map((stat) => `${stat.size}@${stat.mtimeMs}`).join("|")}:${group.projector ?? ""}`;
            if (known != null && this.signatures.get(group.id) === signature) {
                next.set(group.id, known);
                continue;
            }

            const modelStats = stats.slice(0, group.files.length);
            const sizeBytes = modelStats.reduce((sum, stat) => sum + stat.size, 0);
            const modifiedAt = Math.floor(Math.max(...modelStats.map((stat) => stat.mtimeMs)) / 1000);
            const descriptor = await this.describe(group, sizeBytes, modifiedAt);
            this.signatures.set(group.id, signature);
            next.set(group.id, descriptor);
            this.logFound(descriptor, known != null);
        }

        for (const id of this.descriptors.keys())
            if (!next.has(id)) {
                this.signatures.delete(id);
                this.logger.info({event: "model_removed", model: id}, `model removed: ${id}`);
            }

        this.descriptors = next;
    }

    private async describe(group: ModelFileGroup, sizeBytes: number, modifiedAt: number): Promise<ModelDescriptor> {
        const base = {id: group.id, path: group.path, files: group.files, sizeBytes, modifiedAt, ...(group.projector == null ? {} : {projector: group.projector})};
        const unavailable = (error: string): ModelDescriptor =>
            ({...base, architecture: null, trainedContextLength: null, capabilities: [], error});

        if (group.missingParts > 0)
            return unavailable(`split model is missing ${group.missingParts} of its parts`);

        let summary: GgufSummary;
        try {
            summary = await this.inspect(group.path);
        } catch (error) {
            return unavailable(error instanceof UnloadableModelError
                ? `llama.cpp cannot load it: ${error.message}`
                : `not a readable GGUF file (${error instanceof Error ? error.message : String(error)})`);
        }
        const projectorError = group.projector == null ? undefined
            : await this.checkProjector(group.projector).then(() => undefined, (error: unknown) => projectorRefusal(group.projector!, error));
        return {...base, ...summary, ...(projectorError == null ? {} : {projectorError})};
    }

    private logFound(descriptor: ModelDescriptor, changed: boolean): void {
        if (descriptor.error != null)
            this.logger.warn({event: "model_unavailable", model: descriptor.id, reason: descriptor.error},
                `model ${descriptor.id} is unavailable: ${descriptor.error}`);
        else
            this.logger.info({event: changed ? "model_changed" : "model_found", model: descriptor.id, architecture: descriptor.architecture},
                `model ${changed ? "changed" : "found"}: ${descriptor.id}`);
    }
}

/** Every file's stats, or null for a group that is no model (any file gone or unreadable); throws a momentary failure. */
async function statAll(files: readonly string[]): Promise<Stats[] | null> {
    const stats = await Promise.all(files.map((file) => fs.stat(file).catch((error: NodeJS.ErrnoException) => {
        if (isMomentaryFailure(error))
            throw error;
        return null;
    })));
    return stats.some((stat) => stat == null) ? null : stats as Stats[];
}
