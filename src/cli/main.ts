import {createRequire} from "node:module";
import {Command} from "commander";
import {serveCommand} from "./serveCommand.js";

const {version} = createRequire(import.meta.url)("../../package.json") as {version: string};

/** The `chatserve` program: `serve` is the default command, so `chatserve --models DIR` works. */
export async function main(argv: string[] = process.argv): Promise<void> {
    const program = new Command("chatserve")
        .description("An OpenAI-compatible server for local GGUF models")
        .version(version, "-v, --version")
        .showHelpAfterError("(run chatserve --help for every option)")
        .addCommand(serveCommand(), {isDefault: true});
    await program.parseAsync(argv);
}
