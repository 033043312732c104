import {createRequire} from "node:module";
import {Command} from "commander";
import {cacheCommand} from "./cacheCommand.js";
import {CommandFailure} from "./commandFailure.js";
import {lsCommand} from "./lsCommand.js";
import {psCommand} from "./psCommand.js";
import {pullCommand} from "./pullCommand.js";
import {serveCommand} from "./serveCommand.js";
import {describeStartupFailure} from "./startupFailure.js";

const {version} = createRequire(import.meta.url)("../../package.json") as {version: string};

/**
 * llama-server's two-letter short flags, which commander cannot define (a short flag is one
 * letter), so that a llama-server command line's `-ctk q8_0 -ctv q8_0` works here too.
 */
export function llamaServerSpelling(argument: string): string {
    return argument === "-ctk" ? "--cache-type-k" : argument === "-ctv" ? "--cache-type-v" : argument;
}

/**
 * The `chatserve` program: `chatserve --models DIR` and `chatserve serve --models DIR` both serve;
 * `ps`, `ls` and `pull` are the other commands.
 */
export async function main(argv: string[] = process.argv): Promise<void> {
    const program = new Command("chatserve")
        .description("Serve the GGUF models in a folder behind an OpenAI-compatible API")
        .version(version, "-v, --version")
        .usage("[command] [options]")
        // A command's options follow its name: `chatserve ls --models DIR` is ls's --models, not serve's.
        .enablePositionalOptions()
        .showHelpAfterError("(run chatserve --help for every option)");
    serveCommand(program);
    psCommand(program);
    lsCommand(program);
    pullCommand(program);
    cacheCommand(program);
    try {
        await program.parseAsync(argv.map(llamaServerSpelling));
    } catch (error) {
        console.error(`chatserve: ${error instanceof CommandFailure ? error.message : describeStartupFailure(error)}`);
        process.exit(1);
    }
}
