import {createRequire} from "node:module";
import {Command} from "commander";
import {serveCommand} from "./serveCommand.js";
import {describeStartupFailure} from "./startupFailure.js";

const {version} = createRequire(import.meta.url)("../../package.json") as {version: string};

/** The `chatserve` program: `chatserve --models DIR` and `chatserve serve --models DIR` both serve. */
export async function main(argv: string[] = process.argv): Promise<void> {
    const program = new Command("chatserve")
        .description("Serve the GGUF models in a folder behind an OpenAI-compatible API")
        .version(version, "-v, --version")
        .showHelpAfterError("(run chatserve --help for every option)");
    try {
        await serveCommand(program).parseAsync(argv);
    } catch (error) {
        console.error(`chatserve: ${describeStartupFailure(error, program.opts())}`);
        process.exit(1);
    }
}
