/**
 * A coding agent's tool list, as the long-context benchmark sends it with every turn: twelve
 * functions in the shape Qwen Code and its relatives send (file reading and editing, search, a
 * shell, a fetch with `format: "uri"`, a todo list), none `strict`. Their documentation is part of
 * the prompt, and `tool_choice: "auto"` makes both servers decode under a lazy tool-call grammar.
 */

type Tool = {type: "function", function: {name: string, description: string, parameters: object}};

const path = (description: string) => ({type: "string", description});

function tool(name: string, description: string, properties: Record<string, object>, required: string[]): Tool {
    return {type: "function", function: {name, description, parameters: {type: "object", properties, required, additionalProperties: false}}};
}

export const agentTools: Tool[] = [
    tool("list_directory", "Lists the names of files and subdirectories directly within a specified directory path. Can optionally ignore entries matching provided glob patterns.",
        {path: path("The absolute path to the directory to list"), ignore: {type: "array", items: {type: "string"}, description: "Glob patterns to ignore"}}, ["path"]),
    tool("read_file", "Reads and returns the content of a specified file. If the file is large, the content will be truncated; use offset and limit to read more.",
        {absolute_path: path("The absolute path to the file to read"), offset: {type: "number", description: "The 0-based line number to start reading from"},
            limit: {type: "number", description: "Maximum number of lines to read"}}, ["absolute_path"]),
    tool("search_file_content", "Searches for a regular expression pattern within the content of files in a specified directory. Returns the lines containing matches, with their file paths and line numbers.",
        {pattern: {type: "string", description: "The regular expression to search for"}, path: path("The directory to search within"),
            include: {type: "string", description: "A glob pattern to filter which files are searched"}}, ["pattern"]),
    tool("glob", "Efficiently finds files matching specific glob patterns, returning absolute paths sorted by modification time (newest first).",
        {pattern: {type: "string", description: "The glob pattern to match against"}, path: path("The directory to search within"),
            case_sensitive: {type: "boolean", description: "Whether the search should be case-sensitive"}}, ["pattern"]),
    tool("replace", "Replaces text within a file. By default, replaces a single occurrence, but can replace multiple occurrences when expected_replacements is specified. Always read the file first.",
        {file_path: path("The absolute path to the file to modify"), old_string: {type: "string", description: "The exact literal text to replace"},
            new_string: {type: "string", description: "The exact literal text to replace old_string with"},
            expected_replacements: {type: "number", minimum: 1, description: "Number of replacements expected"}}, ["file_path", "old_string", "new_string"]),
    tool("write_file", "Writes content to a specified file in the local filesystem. The user has the ability to modify the content.",
        {file_path: path("The absolute path to the file to write to"), content: {type: "string", description: "The content to write to the file"}}, ["file_path", "content"]),
    tool("web_fetch", "Fetches content from a specified URL and processes it using an AI model.",
        {url: {type: "string", format: "uri", description: "The URL to fetch content from"}, prompt: {type: "string", description: "The prompt to run on the fetched content"}}, ["url", "prompt"]),
    tool("read_many_files", "Reads content from multiple files specified by paths or glob patterns within a configured target directory.",
        {paths: {type: "array", items: {type: "string"}, minItems: 1, description: "An array of glob patterns or paths"},
            include: {type: "array", items: {type: "string"}, description: "Additional glob patterns to include"},
            exclude: {type: "array", items: {type: "string"}, description: "Glob patterns for files to exclude"}}, ["paths"]),
    tool("run_shell_command", "Executes a given shell command as `bash -c <command>`. Command can start background processes using `&`.",
        {command: {type: "string", description: "Exact bash command to execute"}, description: {type: "string", description: "Brief description of the command for the user"},
            directory: {type: "string", description: "The directory to run the command in"}, is_background: {type: "boolean", description: "Whether to run in the background"}},
        ["command", "is_background"]),
    tool("save_memory", "Saves a specific piece of information or fact to your long-term memory.",
        {fact: {type: "string", description: "The specific fact or piece of information to remember"}}, ["fact"]),
    tool("todo_write", "Creates and manages a structured task list for your current coding session.",
        {todos: {type: "array", description: "The updated todo list", items: {type: "object", additionalProperties: false, required: ["content", "status", "id"], properties: {
            content: {type: "string", minLength: 1}, status: {type: "string", enum: ["pending", "in_progress", "completed"]}, id: {type: "string"}
        }}}}, ["todos"]),
    tool("task", "Launches a new agent to handle complex, multi-step tasks autonomously.",
        {description: {type: "string", description: "A short (3-5 word) description of the task"}, prompt: {type: "string", description: "The task for the agent to perform"},
            subagent_type: {type: "string", description: "The type of specialized agent to use for this task"}}, ["description", "prompt", "subagent_type"])
];
