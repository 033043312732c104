import fs from "node:fs/promises";
import path from "node:path";
import {Command, Option} from "commander";
import type {ModelDescriptor} from "../models/modelDescriptor.js";
import {formatBytes} from "../models/byteSize.js";
import {CommandFailure} from "./commandFailure.js";
import {textTable} from "./textTable.js";

/** `chatserve ls`: the models folder as the server would list it, read without a server (headers only, no weights). */
export function lsCommand(program: Command): void {
    program.command("ls")
        .alias("list")
        .description("list the models in the models folder, without a server: size, architecture, quantization, trained context, capabilities")
        .addOption(new Option("-m, --models <dir>", "folder of .gguf files (and its direct subfolders)").default("./models").env("CHATSERVE_MODELS"))
        .showHelpAfterError("(run chatserve ls --help for its options)")
        .action(async (options: {models: string}) => {
            process.stdout.write(lsTable(await readModelsFolder(options.models), options.models));
        });
}

/** What the catalogue makes of the folder, as the server's first scan would. */
async function readModelsFolder(modelsDir: string): Promise<ModelDescriptor[]> {
    const stat = await fs.stat(modelsDir).catch((error: NodeJS.ErrnoException) => error);
    if (stat instanceof Error)
        throw new CommandFailure(stat.code === "ENOENT"
            ? `the models folder ${path.resolve(modelsDir)} does not exist: point --models at your models, or pull one with chatserve pull`
            : `the models folder ${path.resolve(modelsDir)} cannot be read (${stat.message})`);
    if (!stat.isDirectory())
        throw new CommandFailure(`${path.resolve(modelsDir)} is not a folder: point --models at the folder of your .gguf files`);

    const [{ModelCatalogue}, {createLogger}] = await Promise.all([import("../models/modelCatalogue.js"), import("../logger.js")]);
    const catalogue = new ModelCatalogue(modelsDir, createLogger("silent"));
    await catalogue.refresh();
    return catalogue.list();
}

/** One row per model, sorted by id; a model that cannot be served says why in its last column. */
export function lsTable(models: readonly ModelDescriptor[], modelsDir: string): string {
    const rows = [...models].sort((a, b) => a.id.localeCompare(b.id)).map((model) => [
        model.id,
        formatBytes(model.sizeBytes),
        model.architecture ?? "-",
        model.quantization ?? "-",
        model.trainedContextLength != null ? String(model.trainedContextLength) : "-",
        model.error != null ? `unavailable: ${model.error}` : capabilities(model).join(", ")
    ]);
    const table = textTable(["NAME", "SIZE", "ARCHITECTURE", "QUANTIZATION", "CONTEXT", "CAPABILITIES"], rows);
    return rows.length > 0
        ? table
        : `${table}(no models in ${path.resolve(modelsDir)}: chatserve pull hf:user/repo:Q4_K_M downloads one, or copy a .gguf file there)\n`;
}

/** A chat model with a projector paired in its folder takes images (where the llama.cpp build has vision: the banner says). */
function capabilities(model: ModelDescriptor): string[] {
    return model.projector != null && model.capabilities.includes("chat") ? [...model.capabilities, `vision (${path.basename(model.projector)})`] : model.capabilities;
}
