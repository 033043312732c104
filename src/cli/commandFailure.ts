/**
 * A command's failure, already worded for the person at the terminal: printed as it is (it may list
 * what to try, on several lines), after "chatserve: ", with exit status 1 and no stack trace.
 */
export class CommandFailure extends Error {
    public override readonly name = "CommandFailure";
}
