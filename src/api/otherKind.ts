import {z} from "zod";

/**
 * An item, block or tool of a `type` chatserve has no schema for (a hosted tool's call, a server
 * tool, a block a newer client sends): accepted here and decided on in translation. One of the
 * known types with a field missing or wrong fails here instead, with what its own schema says
 * about it, so the 400 names the field (`input[0].call_id`) rather than the item.
 *
 * Why here: a zod union that fails in every branch reports the one branch that only failed a
 * refinement, which is this one; its issue is therefore the request's answer.
 */
export function otherKind(known: Readonly<Record<string, z.ZodType>>) {
    return z.object({type: z.string()}).loose().superRefine((item, context) => {
        const schema = Object.hasOwn(known, item.type) ? known[item.type] : undefined;
        if (schema == null)
            return;
        const result = schema.safeParse(item, {reportInput: true});
        const issue = result.success ? undefined : result.error.issues[0];
        const missing = issue?.code === "invalid_type" && issue.input === undefined;
        context.addIssue({
            code: "custom",
            path: issue?.path ?? [],
            message: issue == null ? "a required field is missing or has the wrong type"
                : missing ? `missing: a ${item.type} needs it` : `${issue.message} (in a ${item.type})`
        });
    });
}
