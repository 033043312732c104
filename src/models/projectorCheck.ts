import path from "node:path";
import {inspectProjector} from "./ggufInspection.js";
import type {ModelLoader} from "./registrySettings.js";

/**
 * Every load checks its projector's header first, as the catalogue checks a model's (bounds, then
 * a header read with a time limit: ggufInspection.ts), whichever named it: the folder's pairing
 * (checked at the scan too, for the listing and the banner) or chatserve.json's `mmproj`, and
 * whatever the file became since the scan. A projector that fails is not handed to llama.cpp: the
 * model loads for text, and an image request's 400 gives the reason (`projectorRefusal`).
 */
export function withCheckedProjector(load: ModelLoader, inspect: (file: string) => Promise<void> = inspectProjector): ModelLoader {
    return async (descriptor, plan) => {
        if (plan.projector == null)
            return await load(descriptor, plan);
        const refusal = await inspect(plan.projector).then(() => null, (error: unknown) => projectorRefusal(plan.projector!, error));
        if (refusal == null)
            return await load(descriptor, plan);
        const {projector: _refused, projectorBytes: _bytes, ...textOnly} = plan;
        return await load(descriptor, {...textOnly, projectorRefusal: refusal});
    };
}

/** "its projector mmproj-x.gguf cannot be loaded: <why>", as the listing, the banner and the 400 say it. */
export function projectorRefusal(projector: string, error: unknown): string {
    return `its projector ${path.basename(projector)} cannot be loaded: ${error instanceof Error ? error.message : String(error)}`;
}
