import type {LoadedModel} from "../engine/loadedModel.js";
import type {JsonSchema, ReplyFormat} from "../engine/generationOptions.js";
import {ApiError, BadRequestError} from "../errors.js";
import {fallbackFor} from "../json-schema/constrainedSchema.js";
import {SchemaStrictness, type SchemaOrigin, type SchemaOrigins} from "../json-schema/schemaStrictness.js";

/**
 * Grammars are built now, not once the stream has started, so a schema llama.cpp cannot turn into
 * a grammar (a recursion it cannot unroll, say) is answered before the first byte: a 400 naming it
 * when its caller asked for strictness; otherwise, as OpenAI treats a schema without `strict`, a
 * hint that gives way to any object (a tool's parameters, an object reply) or any JSON value.
 * Returns the format to generate with; the template then renders a fallen-back tool with its
 * fallback too (it renders the schema the grammar enforces).
 */
export function compileGrammars(model: LoadedModel, format: ReplyFormat, origins: SchemaOrigins): ReplyFormat {
    // replyPlan.ts gives an origin for every schema it puts in the format: the tools', in order, and the JSON reply's.
    const json = () => origins.json!;
    const tool = (index: number) => origins.tools[index]!;
    const compiled = <S extends JsonSchema | null>(schema: S, origin: SchemaOrigin): S | JsonSchema => {
        try {
            model.compileSchema(schema);
            return schema;
        } catch (error) {
            // The model stopped serving (shutdown, its file changed): that answer, not the schema's fault.
            if (error instanceof ApiError)
                throw error;
            SchemaStrictness.of(origin.strict, origins.ignored).refuse(new BadRequestError(
                `Invalid '${origin.param}': the schema cannot be turned into a grammar (${(error as Error).message}).`,
                {param: origin.param, code: "unsupported_schema_keyword"}));
            const fallback = fallbackFor(schema);
            model.compileSchema(fallback);
            return fallback;
        }
    };
    switch (format.type) {
        case "text":
        case "grammar":
            // A client's own grammar is compiled apart, asynchronously (textConstraint.ts): llama.cpp's reason for refusing it takes a moment to read.
            return format;
        case "json":
            return {...format, schema: compiled(format.schema, json())};
        case "toolCalls":
            if (format.choice === "none")
                return format;
            return {
                ...format,
                tools: format.tools.map((definition, index) => ({...definition, parameters: compiled(definition.parameters, tool(index))})),
                ...(format.answer != null ? {answer: {schema: compiled(format.answer.schema, json())}} : {})
            };
    }
}
